"""How does one machine hold up under many assistants at once? (issue 17 "Under load")

Starts a local Neo4j of its own (`--data-dir`, default /work/scratch/load/neo4j; left
running for the next run unless `--stop-neo4j`), a live `worldstate serve` on it (`--workers
N` API processes, no in-process curator) and `--curators` separate `worldstate curator`
worker processes; seeds `--owners` owners with the demo conversation
(docs/demo/conversation.json, through `worldstate import locomo`, once per data dir); then
runs `--clients` simulated assistants (locust, bench/load_locust.py) against 127.0.0.1 for
`--seconds`. Each assistant: a prefetch per turn, a search one turn in three, a keep or
discard now and then, a run posted and the chat's history read at the end of each
conversation. `--api URL` takes a running serve instead (then nothing is started; pass
`--seed` with its owners' tokens).

Reports: throughput, p50/p99 per route (locust's, rounded to its buckets), the error
count, the share of prefetches answered degraded, the curator's lag on the runs posted
during the load (`finished_at - created_at`, GET /v1/runs/{id}), runs closed per second
per worker, the RSS (peak) and the CPU (cores used on average) of the API processes, the
curator workers, Neo4j and locust itself, and the load average before and after.

    .venv/bin/python bench/load.py --clients 10 --seconds 20
    .venv/bin/python bench/load.py --clients 50 --seconds 120 --workers 4
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


from bench.measure import p

DEMO = ROOT / "docs" / "demo" / "conversation.json"
CLI = [sys.executable, "-c", "from api.cli.main import main; main()"]


def cli_env(data_dir: Path, **extra: str) -> dict[str, str]:
    """The children's environment: the local Neo4j of `data_dir`, found by each process."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEO4J_")}
    env["WORLDSTATE_DATA_DIR"] = str(data_dir)
    env["PYTHONPATH"] = str(ROOT)
    env.update(extra)
    return env


def start_neo4j(data_dir: Path) -> str:
    """Start (or find) the local Neo4j of `data_dir`; return its Bolt URI."""
    out = subprocess.run(
        [*CLI, "neo4j", "start"],
        env=cli_env(data_dir),
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.strip().splitlines()[-1]


def neo4j_pid(data_dir: Path) -> int:
    """The pid of the local Neo4j running in `data_dir`."""
    from graph.local.server import find_running

    running = find_running(data_dir)
    if running is None:
        raise SystemExit(f"no Neo4j running in {data_dir}")
    return running.pid


def wait_ready(api: str, seconds: float = 300.0) -> None:
    """Poll /readyz until 200."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{api}/readyz", timeout=2.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise SystemExit(f"{api} not ready after {seconds:.0f} s")


def seed(api: str, uri: str, data_dir: Path, owners: int, seed_file: Path) -> dict[str, Any]:
    """Owners with a read/write/curate token each, the demo conversation imported once per
    owner; kept in `seed_file` so later runs on the same data dir reuse them."""
    known: list[dict[str, str]] = []
    if seed_file.exists():
        known = json.loads(seed_file.read_text())["owners"]
    if len(known) < owners:
        from committer.apply import Committer
        from graph.driver import connect

        fresh = []
        driver = connect(uri)
        try:
            for i in range(len(known), owners):
                owner = f"load-owner-{i}"
                token, _ = Committer(driver).create_token(owner, ["read", "write", "curate"])
                fresh.append({"owner": owner, "token": token})
        finally:
            driver.close()
        procs = [
            subprocess.Popen(
                [
                    *CLI,
                    "import",
                    "locomo",
                    str(DEMO),
                    "--owner",
                    o["owner"],
                    "--api",
                    api,
                    "--token",
                    o["token"],
                    "--timeout",
                    "1800",
                ],
                env=cli_env(data_dir),
                cwd=ROOT,
                stdout=subprocess.DEVNULL,
            )
            for o in fresh
        ]
        began = time.monotonic()
        if any(proc.wait() != 0 for proc in procs):
            raise SystemExit("seeding failed")
        print(f"seeded {len(procs)} owners in {time.monotonic() - began:.0f} s", flush=True)
        known.extend(fresh)
        seed_file.write_text(json.dumps({"owners": known}))
    chosen = known[:owners]
    demo = json.loads(DEMO.read_text())
    lines = [
        m["text"]
        for k, v in demo.items()
        if k.startswith("session_") and isinstance(v, list)
        for m in v
        if len(m["text"]) < 300
    ]
    return {"owners": chosen, "lines": lines}


class Sampler(threading.Thread):
    """Peak RSS (MiB) and CPU seconds per group of processes, sampled every second; a
    process that exits keeps the CPU time last seen (locust exits before the end)."""

    def __init__(self, groups: dict[str, Any]):
        super().__init__(daemon=True)
        self.groups = groups  # name -> callable returning a list of psutil.Process
        self.peak: dict[str, float] = dict.fromkeys(groups, 0.0)
        self.first: dict[str, dict[int, float]] = {name: {} for name in groups}
        self.last: dict[str, dict[int, float]] = {name: {} for name in groups}
        self.halt = threading.Event()
        self.sample()

    def run(self) -> None:
        while not self.halt.wait(1.0):
            self.sample()

    def sample(self) -> None:
        for name, procs in self.groups.items():
            found = procs()
            self.peak[name] = max(self.peak[name], rss_of(found))
            for proc in found:
                with contextlib.suppress(psutil.Error):
                    t = proc.cpu_times()
                    self.first[name].setdefault(proc.pid, t.user + t.system)
                    self.last[name][proc.pid] = t.user + t.system

    def cores(self, name: str, wall: float) -> float:
        """Cores used on average by a group over `wall` seconds."""
        used = sum(v - self.first[name].get(pid, v) for pid, v in self.last[name].items())
        return used / wall


def rss_of(procs: list[psutil.Process]) -> float:
    total = 0.0
    for proc in procs:
        with contextlib.suppress(psutil.Error):
            total += proc.memory_info().rss / 2**20
    return total


def family(pid: int) -> list[psutil.Process]:
    """A process and its descendants (uvicorn's worker processes)."""
    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except psutil.Error:
        return []


def lag(api: str, tokens: dict[str, str], runs: list[dict[str, str]], wait_s: float) -> Any:
    """Wait up to `wait_s` for the posted runs to close; return their (created, finished)."""
    deadline = time.monotonic() + wait_s
    closed: dict[str, tuple[datetime, datetime]] = {}
    with httpx.Client(base_url=api, timeout=30.0) as client:
        pending = list(runs)
        while pending and time.monotonic() < deadline:
            still = []
            for run in pending:
                try:
                    r = client.get(
                        f"/v1/runs/{run['id']}",
                        headers={"Authorization": f"Bearer {tokens[run['owner']]}"},
                    )
                    body = r.json() if r.status_code == 200 else {}
                except httpx.HTTPError:  # a busy server may drop the connection: ask again
                    body = {}
                if body.get("finished_at"):
                    closed[run["id"]] = (
                        datetime.fromisoformat(body["created_at"]),
                        datetime.fromisoformat(body["finished_at"]),
                    )
                else:
                    still.append(run)
            pending = still
            if pending:
                time.sleep(1.0)
    return closed, len(pending)


METRIC = re.compile(r'^(worldstate_\w+)\{pid="(\d+)"(?:,reason="(\w+)")?\} (\S+)$', re.M)


def scrape(api: str, processes: int) -> dict[str, dict[str, float]]:
    """Every API process's /metrics, by pid (new connections until each one answered)."""
    seen: dict[str, dict[str, float]] = {}
    with httpx.Client(limits=httpx.Limits(max_keepalive_connections=0), timeout=10) as c:
        for _ in range(50 * processes):
            values: dict[str, float] = {}
            rows = METRIC.findall(c.get(f"{api}/metrics").text)
            for name, _, reason, value in rows:
                values[f"{name}:{reason}" if reason else name] = float(value)
            if rows:
                seen[rows[0][1]] = values
            if len(seen) >= processes:
                break
    return seen


def where_time_goes(before: dict[str, Any], after: dict[str, Any]) -> None:
    """Print each API process's prefetch pool figures over the load."""
    print("\nprefetch pool per API process over the load (from /metrics):")
    print("| pid | started | mean wait for a thread ms | mean run ms | shed | degraded by reason |")
    print("|---|---|---|---|---|---|")
    for pid, a in sorted(after.items()):
        b = before.get(pid, {})

        def d(key: str, a: dict[str, float] = a, b: dict[str, float] = b) -> float:
            return a.get(key, 0.0) - b.get(key, 0.0)

        n = d("worldstate_prefetch_started_total") or float("nan")
        reasons = {
            k.split(":")[1]: int(d(k)) for k in a if k.startswith("worldstate_prefetch_degraded")
        }
        print(
            f"| {pid} | {n:.0f} | {d('worldstate_prefetch_wait_seconds_total') / n * 1000:.1f} | "
            f"{d('worldstate_prefetch_run_seconds_total') / n * 1000:.1f} | "
            f"{d('worldstate_prefetch_shed_total'):.0f} | "
            + ", ".join(f"{k} {v}" for k, v in reasons.items() if v)
            + " |"
        )


def routes(csv_path: Path) -> list[dict[str, str]]:
    with csv_path.open() as f:
        return list(csv.DictReader(f))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--clients", type=int, default=10)
    ap.add_argument("--seconds", type=int, default=20)
    ap.add_argument("--workers", type=int, default=1, help="API processes (serve --workers)")
    ap.add_argument("--curators", type=int, default=2, help="curator worker processes")
    ap.add_argument("--owners", type=int, default=5)
    ap.add_argument("--turns", type=int, default=6, help="turns per conversation")
    ap.add_argument("--think", type=float, default=0.5, help="mean seconds between turns")
    ap.add_argument("--port", type=int, default=8765)
    ap.add_argument("--data-dir", type=Path, default=Path("/work/scratch/load/neo4j"))
    ap.add_argument("--api", help="a running serve to load instead of starting one")
    ap.add_argument("--seed", type=Path, help="seed file (default: beside the data dir)")
    ap.add_argument("--lag-wait", type=float, default=300.0, help="seconds to wait for runs")
    ap.add_argument("--stop-neo4j", action="store_true")
    args = ap.parse_args()

    data_dir = args.data_dir
    data_dir.parent.mkdir(parents=True, exist_ok=True)
    seed_file = args.seed or data_dir.parent / "seed.json"
    out_dir = data_dir.parent / f"run-{int(time.time())}"
    out_dir.mkdir()
    children: list[subprocess.Popen[Any]] = []
    api = args.api or f"http://127.0.0.1:{args.port}"
    try:
        groups: dict[str, Any] = {}
        if args.api is None:
            uri = start_neo4j(data_dir)
            npid = neo4j_pid(data_dir)
            groups["neo4j"] = lambda: family(npid)
            env = cli_env(data_dir, WORLDSTATE_CURATOR_IN_PROCESS="false")
            workers = ["--workers", str(args.workers)] if args.workers > 1 else []
            serve = subprocess.Popen(
                [*CLI, "serve", "--port", str(args.port), *workers],
                env=env,
                cwd=ROOT,
                stdout=(out_dir / "serve.log").open("w"),
                stderr=subprocess.STDOUT,
            )
            children.append(serve)
            groups["api"] = lambda: family(serve.pid)
            wait_ready(api)  # serve made the schema: workers starting with it could race
            curators = [
                subprocess.Popen(
                    [*CLI, "curator"],
                    env=cli_env(data_dir),
                    cwd=ROOT,
                    stdout=(out_dir / f"curator{i}.log").open("w"),
                    stderr=subprocess.STDOUT,
                )
                for i in range(args.curators)
            ]
            children.extend(curators)
            groups["curators"] = lambda: [c for w in curators for c in family(w.pid)]
            world = seed(api, uri, data_dir, args.owners, seed_file)
        else:
            world = json.loads(args.seed.read_text()) if args.seed else {}
            if "lines" not in world:
                raise SystemExit("--api needs --seed with owners and lines")
        metrics_before = scrape(api, args.workers)
        load_before = os.getloadavg()
        stats_prefix = out_dir / "locust"
        tally_file = out_dir / "tally.json"
        locust = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "locust",
                "-f",
                str(ROOT / "bench" / "load_locust.py"),
                "--headless",
                "-u",
                str(args.clients),
                "-r",
                str(max(args.clients // 5, 1)),
                "-t",
                f"{args.seconds}s",
                "--host",
                api,
                "--csv",
                str(stats_prefix),
                "--only-summary",
                "--stop-timeout",
                "5",
                "--loglevel",
                "WARNING",
            ],
            env={
                **os.environ,
                "LOAD_SEED": json.dumps(world),
                "LOAD_OUT": str(tally_file),
                "LOAD_USERS": str(args.clients),
                "LOAD_TURNS": str(args.turns),
                "LOAD_THINK_S": str(args.think),
            },
            cwd=ROOT,
            stdout=(out_dir / "locust.log").open("w"),
            stderr=subprocess.STDOUT,
        )
        groups["locust"] = lambda: family(locust.pid)
        sampler = Sampler(groups)
        began = time.monotonic()
        sampler.start()
        locust.wait()
        wall = time.monotonic() - began
        sampler.sample()
        sampler.halt.set()
        load_after = os.getloadavg()
        metrics_after = scrape(api, args.workers)
        tally = json.loads(tally_file.read_text())
        tokens = {o["owner"]: o["token"] for o in world["owners"]}
        closed, open_runs = lag(api, tokens, tally["runs"], args.lag_wait)
        report(args, routes(Path(f"{stats_prefix}_stats.csv")), tally, closed, open_runs)
        where_time_goes(metrics_before, metrics_after)
        print(f"\nprocesses over the {wall:.0f} s of load (RSS peak; CPU in cores on average):")
        for name in groups:
            cores = sampler.cores(name, wall)
            print(f"  {name:<9} RSS {sampler.peak[name]:7.0f} MiB   CPU {cores:4.2f} cores")
        print(
            f"load average before {load_before[0]:.2f} / {load_before[1]:.2f}, "
            f"after {load_after[0]:.2f} / {load_after[1]:.2f} (1 / 5 min; 2 cores)"
        )
        print(f"logs and locust CSVs: {out_dir}")
    finally:
        for child in children:
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)
        for child in children:
            try:
                child.wait(timeout=30)
            except subprocess.TimeoutExpired:
                child.kill()
        if args.stop_neo4j and args.api is None:
            subprocess.run([*CLI, "neo4j", "stop"], env=cli_env(data_dir), cwd=ROOT, check=False)


def report(
    args: argparse.Namespace,
    rows: list[dict[str, str]],
    tally: dict[str, Any],
    closed: dict[str, tuple[datetime, datetime]],
    open_runs: int,
) -> None:
    """Print the tables."""
    print(
        f"\n{args.clients} assistants x {args.seconds} s, serve --workers {args.workers}, "
        f"{args.curators} curator workers, {args.owners} owners, {args.turns} turns per "
        f"conversation, think {args.think} s"
    )
    print("\n| route | requests | errors | req/s | p50 ms | p99 ms |\n|---|---|---|---|---|---|")
    for row in rows:
        print(
            f"| {row['Name']} | {row['Request Count']} | {row['Failure Count']} | "
            f"{float(row['Requests/s']):.1f} | {row['50%']} | {row['99%']} |"
        )
    total = tally["prefetch"]
    share = tally["degraded"] / total if total else 0.0
    print(
        f"\nprefetches answered 200: {total}, degraded {tally['degraded']} ({share:.1%}); "
        f"runs posted {len(tally['runs'])}; kept {tally['kept']}, discarded "
        f"{tally['discarded']}, decided first by another assistant (409) "
        f"{tally['decide_conflicts']}"
    )
    lags = [(f - c).total_seconds() for c, f in closed.values()]
    if lags:
        finished = sorted(f for _, f in closed.values())
        span = (finished[-1] - finished[0]).total_seconds()
        rate = (len(finished) - 1) / span if span > 0 else float("nan")
        print(
            f"curator lag (posted -> closed) on {len(lags)} runs: p50 {p(lags, 0.5):.1f} s, "
            f"p99 {p(lags, 0.99):.1f} s, max {max(lags):.1f} s; still open after the wait: "
            f"{open_runs}; closed {rate:.2f} runs/s in all ({rate / args.curators:.2f} per "
            "worker, first to last close)"
        )
    else:
        print(f"curator lag: no run closed ({open_runs} still open)")


if __name__ == "__main__":
    main()
