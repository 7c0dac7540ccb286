"""Load on the move API (serve_api.py, started here as its own process): 1, 4 and 16 clients at
once, each over its own connection replaying the recorded gen 9 battles (the golden files, both
sides) request by request, as fast as the answers come. Printed side by side, one row a run:
requests a second over all clients, p50/p99 latency of a request as its client saw it, and the
CPU cores the server kept busy (its CPU time over the run's wall time, all threads), for
the policy alone and for `agent` (its search), served with batching across connections (the
default) and one request at a time (--batch-wait-ms 0, one worker: the server before batching).

    ./rp benchmarks/bench_move_api.py [--seconds 8] [--clients 1,4,16] [--workers 2] [--players policy,agent]

Clients run as asyncio tasks in this process, so they share the machine with the server, as a
bot and its server on one host would. A benchmark, not a test: run it on an idle machine."""
import argparse
import asyncio
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field

import numpy as np

from metapvp import ROOT
from metapvp.api.server import default_shards
from metapvp.players.spec import spec_list
from metapvp.tests.fuzzing import battle_requests, recorded_streams

PLAYERS = {"policy": str(ROOT / "static/models/gen9randombattle.zip"), "agent": "agent"}
FORMATS = ["gen9randombattle", "gen9customgame"]
WARMUP_S = 1.0


def request_templates() -> list[list[str]]:
    """Per recorded stream, its requests as JSON text with BATTLE-ID where the battle id goes."""
    return [[json.dumps(r) for r in battle_requests("BATTLE-ID", side, pumps)]
            for _, side, pumps in recorded_streams(FORMATS)]


def cpu_seconds(pid: int) -> float:
    """CPU time a process has used, all its threads (Linux's /proc; NaN elsewhere)."""
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return float("nan")


def start_server(model: str, workers: int, wait_ms: float):
    """serve_api.py on a free port: (process, port)."""
    proc = subprocess.Popen([sys.executable, "-m", "metapvp.exe.serve_api", "--model", model, "--port", "0",
                             "--workers", str(workers), "--batch-wait-ms", str(wait_ms)],
                            stderr=subprocess.PIPE, text=True, cwd=ROOT)
    for line in proc.stderr:
        found = re.search(r" on [\d.]+:(\d+)", line)
        if found:
            return proc, int(found.group(1))
    proc.wait()
    raise RuntimeError(f"serve_api exited ({proc.returncode}) before it listened")


@dataclass
class Run:
    """One run's clients, their clock, and what they saw."""
    clients: int
    seconds: float
    server: int          # the server's process id
    ready: int = 0
    cpu: float = 0.0     # the server's CPU seconds when the clock started, then over the run
    started: asyncio.Event = field(default_factory=asyncio.Event)
    start: float = float("inf")
    stop: float = float("inf")
    latencies: list = field(default_factory=list)
    problems: list = field(default_factory=list)

    def one_ready(self):
        self.ready += 1
        if self.ready == self.clients:
            self.start = time.perf_counter() + WARMUP_S
            self.stop = self.start + self.seconds
            self.cpu = cpu_seconds(self.server)
            self.started.set()

    def cores(self) -> float:
        """CPU cores the server kept busy from the clock's start (warm-up included) to now."""
        return (cpu_seconds(self.server) - self.cpu) / (time.perf_counter() - self.start + WARMUP_S)


async def client(port: int, cid: int, templates: list[list[str]], run: Run):
    """Replays the recorded streams (each client from another one first) until the run stops.
    Its first battle starts at its own point, (2 cid + 1) / 2n of the way in, reached before the
    clock starts by requests that sample the policy (no search): the clients' requests are then
    spread over the battles' course, as the requests of battles running side by side are."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=1 << 22)
    streams = templates[cid % len(templates):] + templates[:cid % len(templates)]
    skip = max(1, len(streams[0]) * (2 * cid + 1) // (2 * run.clients))
    rep = 0
    try:
        while True:
            for k, requests in enumerate(streams):
                battle = f"c{cid}-{rep}-{k}"
                reply = {}
                for i, text in enumerate(requests):
                    text = text.replace("BATTLE-ID", battle)
                    if skip:
                        text = text[:-1] + ', "sample": true}'
                    sent = time.perf_counter()
                    writer.write(text.encode() + b"\n")
                    reply = json.loads(await reader.readline())
                    done = time.perf_counter()
                    if reply.get("battle") != battle or "error" in reply:
                        run.problems.append(reply)
                    if skip and i + 1 == skip:
                        skip = 0
                        run.one_ready()
                        await run.started.wait()
                    elif run.start <= sent and done <= run.stop:
                        run.latencies.append(done - sent)
                    if done > run.stop:
                        return
                if not reply.get("ended"):
                    writer.write(json.dumps({"battle": battle, "close": True}).encode() + b"\n")
                    await reader.readline()
            rep += 1
    finally:
        writer.close()


async def load(server: int, port: int, clients: int, seconds: float, templates) -> tuple[Run, float]:
    """(the run, the server's busy cores over it)."""
    run = Run(clients, seconds, server)
    await asyncio.gather(*(client(port, c, templates, run) for c in range(clients)))
    return run, run.cores()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=8.0, help="measured seconds per run (after 1 s of warm-up)")
    ap.add_argument("--agent-seconds", type=float, default=30.0, help="the same for agent, whose requests are slower")
    ap.add_argument("--clients", default="1,4,16")
    ap.add_argument("--workers", type=int, default=default_shards(),
                    help="the batched server's workers (default: serve_api's, this machine's CPUs up to 8)")
    ap.add_argument("--players", default="policy,agent", help=f"of {', '.join(PLAYERS)}")
    ap.add_argument("--wait-ms", type=float, default=2.0, help="the batched server's --batch-wait-ms")
    args = ap.parse_args(argv)
    templates = request_templates()
    counts = [int(c) for c in args.clients.split(",")]
    servers = [("batched", args.workers, args.wait_ms), ("one at a time", 1, 0.0)]
    print(f"{'player':<7} {'server':<22} {'clients':>7} {'requests/s':>10} {'x 1 client':>10} {'p50 ms':>7} "
          f"{'p99 ms':>7} {'server cores':>12} {'errors':>6}", flush=True)
    for player in spec_list(args.players):
        for label, workers, wait in servers:
            proc, port = start_server(PLAYERS[player], workers, wait)
            seconds = args.agent_seconds if player == "agent" else args.seconds
            try:
                alone = None
                for n in counts:
                    run, cores = asyncio.run(load(proc.pid, port, n, seconds, templates))
                    latencies, problems = run.latencies, run.problems
                    rate = len(latencies) / seconds
                    alone = alone or rate
                    ms = np.array(latencies) * 1000
                    server = f"{label} ({workers} worker{'s' * (workers > 1)})"
                    print(f"{player:<7} {server:<22} {n:>7} {rate:>10.1f} "
                          f"{rate / alone:>10.2f} {np.percentile(ms, 50):>7.2f} {np.percentile(ms, 99):>7.1f} "
                          f"{cores:>12.2f} {len(problems):>6}", flush=True)
            finally:
                proc.terminate()
                proc.wait()


if __name__ == "__main__":
    main()
