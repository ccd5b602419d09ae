"""Evidence recall on LoCoMo's own questions (issue 12): the evaluation run by
`worldstate eval locomo` (api/cli/eval.py) and `bench/locomo_recall.py`.

For each file: import the conversation into a fresh owner, wait until every run is
curated, ask each question of categories 1-4 through `GET /v1/search` and `POST
/v1/prefetch`, rank the raw turns by the two baselines (api/eval/baselines.py), and
report (api/eval/report.py). The fresh owner is erased afterwards unless `--keep`.

An owner kept by an earlier run can be asked again without importing anything (`owners`):
a change to the ranking needs no new import, so each experiment on it takes the questions'
time alone. Such a file reports no import figures (`FileResult.imported` is None).
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

import httpx
from neo4j import Driver

from api.eval.baselines import bm25_rank, dense_rank
from api.eval.locomo import Conversation, Retrieved
from api.eval.report import Asked, FileResult
from api.eval.service import OwnerClient, serve_in_process
from api.http.settings import Settings
from committer.apply import Committer
from graph.embedding import Embedder, EmbedderUnavailable, build_embedder

Say = Callable[[str], None]


def memory_mb() -> tuple[float, float] | None:
    """This process's resident memory and its peak so far, MiB (Linux /proc), or None."""
    try:
        status = Path("/proc/self/status").read_text().splitlines()
    except OSError:
        return None
    kb = {
        line.split(":")[0]: int(line.split()[1])
        for line in status
        if line.startswith(("VmRSS:", "VmHWM:"))
    }
    if "VmRSS" not in kb or "VmHWM" not in kb:
        return None
    return kb["VmRSS"] / 1024, kb["VmHWM"] / 1024


def evaluate(
    conversation: Conversation,
    base_url: str,
    committer: Committer,
    embedder: Embedder | None,
    *,
    k: int = 10,
    timeout: float = 1800.0,
    keep: bool = False,
    in_process: bool = True,
    owner: str | None = None,
    say: Say = lambda _: None,
) -> FileResult:
    """Evaluate one conversation against the service at `base_url`.

    Args:
        conversation: the file, read (api/eval/locomo.py).
        base_url: the REST API, e.g. `http://127.0.0.1:8000`.
        committer: mints the fresh owner's token and erases the owner afterwards (the
            store the service at `base_url` uses).
        embedder: the service's embedder, for the dense baseline; None leaves it out.
        k: results asked of search and of each baseline (1-100).
        timeout: seconds to wait for the curator to finish every run.
        keep: keep the fresh owner (and print its name) instead of erasing it.
        in_process: the service runs in this process, so its memory is this process's.
        owner: an owner this conversation was imported into by an earlier run (kept): ask it
            as it is, import nothing and erase nothing; None imports into a fresh owner.
        say: where progress lines go.

    Raises:
        EvalError: the service refused a call, or the curator did not finish in time.
    """
    reused = owner is not None
    owner = owner or f"eval-locomo-{conversation.name}-{uuid.uuid4().hex[:8]}"
    token, record = committer.create_token(owner, ["read", "write"])
    texts = [q.text for q in conversation.questions]
    try:
        headers = {"Authorization": f"Bearer {token}"}
        with httpx.Client(base_url=base_url, headers=headers, timeout=120.0) as http:
            client = OwnerClient(http, {run["id"] for run in conversation.runs})
            imported = None
            if reused:
                client.check_imported(conversation.runs)
            else:
                say(f"{conversation.name}: importing {len(conversation.turns)} turns as {owner}")
                imported = client.import_runs(conversation.runs, timeout)
            memory = memory_mb() if in_process else None
            say(f"{conversation.name}: asking {len(texts)} questions ...")
            modes: Counter[str] = Counter()
            searched, prefetched = [], []
            for text in texts:
                items, mode = client.search(text, k)
                modes[mode] += 1
                searched.append(items)
                prefetched.append(client.prefetch(text))
    finally:
        if reused:
            committer.revoke_token(record.id)
        elif keep:
            say(f"{conversation.name}: kept owner {owner}")
        else:
            committer.erase_owner(owner, owner)
    ranked = [{"search": s} for s in searched]
    notes: list[str] = []
    for name, rank in _baselines(conversation, embedder, texts, k, notes):
        for entry, items in zip(ranked, rank, strict=True):
            entry[name] = items
    return FileResult(
        name=conversation.name,
        owner=owner,
        k=k,
        asked=[
            Asked(q, r, items, degraded)
            for q, r, (items, degraded) in zip(
                conversation.questions, ranked, prefetched, strict=True
            )
        ],
        imported=imported,
        unusable=conversation.unusable,
        rss_mb=memory[0] if memory else None,
        peak_rss_mb=memory[1] if memory else None,
        search_modes=dict(modes),
        notes=notes,
    )


def _baselines(
    conversation: Conversation,
    embedder: Embedder | None,
    texts: list[str],
    k: int,
    notes: list[str],
) -> Iterator[tuple[str, list[list[Retrieved]]]]:
    """The baselines' rankings, BM25 then dense; a dense baseline that cannot run is noted."""
    yield "bm25", bm25_rank(conversation.turns, texts, k)
    if embedder is None:
        notes.append("dense baseline left out: no embedder configured (WORLDSTATE_EMBEDDER=none)")
        return
    try:
        yield "dense", dense_rank(embedder, conversation.turns, texts, k)
    except EmbedderUnavailable as exc:
        notes.append(f"dense baseline left out: {exc}")


@contextmanager
def _service(settings: Settings, driver: Driver, api: str | None) -> Iterator[str]:
    """The base URL of the service to evaluate: `api`, else one served in this process."""
    if api is not None:
        yield api.rstrip("/")
        return
    with serve_in_process(settings, driver) as url:
        yield url


def run(
    driver: Driver,
    settings: Settings,
    conversations: Sequence[Conversation],
    *,
    api: str | None = None,
    k: int = 10,
    timeout: float = 1800.0,
    keep: bool = False,
    owners: Mapping[str, str] | None = None,
    say: Say = lambda _: None,
) -> list[FileResult]:
    """Evaluate each conversation in turn, each in a fresh owner.

    Args:
        driver: the store (the caller opens and closes it).
        settings: this process's settings: the in-process API's, and the embedder's.
        conversations: read by `read_conversation`.
        api: a running `worldstate serve`'s base URL (it must use the same Neo4j as
            `driver`); None serves the API in this process, on a loopback port.
        k: results asked of search and of each baseline.
        timeout: seconds to wait for the curator, per file.
        keep: keep the fresh owners.
        owners: conversation name -> an owner an earlier run imported it into and kept; a
            conversation named here is asked there, without an import (`evaluate`'s `owner`).
        say: where progress lines go.

    Raises:
        EvalError: the service refused a call or the curator did not finish in time.
    """
    committer = Committer(driver, settings.neo4j_database)
    embedder = build_embedder(settings)
    with _service(settings, driver, api) as url:
        return [
            evaluate(
                c,
                url,
                committer,
                embedder,
                k=k,
                timeout=timeout,
                keep=keep,
                in_process=api is None,
                owner=(owners or {}).get(c.name),
                say=say,
            )
            for c in conversations
        ]
