"""Soak benchmark: many battles in one go, with each process's resident memory sampled, to show
that nothing crashes, nothing hangs and memory does not creep.

    ./rp benchmarks/soak.py [--h2h 10000] [--live 1000] [--concurrent 4] [--probe 0] [--outdir runs/soak]

1. head2head.py, heuristic against maxdamage, --h2h battles on 2 workers;
2. challenge_bot.py (--bot, default the shipped `agent`) against smogon_eval.py (heuristic) on a
   local Showdown server, --live battles, several at once, both sides with the battle timer on:
   the bot's record, its time from each request to its choice (p50, p90, p99, max), battles
   lost to the timer;
3. with --probe N, N battles of the same head2head in this one process, printing after each
   twentieth of them the process's memory, V8's heap and the battle-knowledge caches' sizes.

Memory growth is measured two ways, per process:
 - by time, from this script's own samples of each process's resident set (every 5 s): from
   the first sample after the first WARMUP of the run to the last;
 - warm, from the samples the metapvp processes take of themselves every twentieth of their
   battles (--memory-every: resident set, V8 heap, knowledge-cache sizes): from the first
   sample after the damage-results cache first turned over (the bounded caches are full; what
   a process holds from then on is its steady state) to the last.
A run is hung when it writes nothing new (no battle finished) for STALL_S: its processes are
interrupted, so that each writes what it finished, and killed if they do not stop; a slow bot
that keeps finishing battles runs as long as it needs. Prints a table; writes soak.json to
--outdir. Exits 1 if any run crashed, hung, had errors or lost a battle on time."""
from __future__ import annotations

import argparse
import json
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from metapvp import ROOT
from metapvp.engine.memory import rss_kib
from metapvp.showdown.server import LocalServer

WARMUP = 0.1       # share of a run before memory sampled by time is compared
SELF_SAMPLES = 20  # samples each metapvp process takes of itself over its battles
SAMPLE_S = 5.0     # seconds between samples
STALL_S = 600.0    # a run that writes nothing new for this long (no battle finished) is hung
GRACE_S = 30.0     # what a hung run's processes get to write what they finished before they are killed


def children(pid: int) -> list[int]:
    out = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            out += [int(k) for k in (task / "children").read_text().split()]
        except FileNotFoundError:
            pass
    return out


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except (FileNotFoundError, ProcessLookupError):
        return ""


def files_under(path: Path) -> int:
    """How many files the run has written under `path`: it grows as battles finish."""
    return sum(1 for p in path.rglob("*") if p.is_file()) if path.exists() else 0


def stop(procs) -> None:
    """Interrupts each running process, so that it writes what it finished, and kills the ones
    still running GRACE_S later."""
    running = [p for p in procs if p.poll() is None]
    for p in running:
        p.send_signal(signal.SIGINT)
    deadline = time.monotonic() + GRACE_S
    for p in running:
        try:
            p.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def watch(procs: dict[str, subprocess.Popen], progress: Callable[[], int], stall: float = STALL_S,
          extra: dict[str, int] | None = None, every: float = SAMPLE_S) -> dict:
    """Samples the RSS of each process (and of its direct children, e.g. head2head's workers)
    every `every` seconds until every one in `procs` has exited, or `progress()` (what the run
    has written) stands still for `stall` seconds: a hang, and the processes are stopped. A slow
    run that keeps finishing battles is not a hung one, however long it takes."""
    samples: dict[str, list] = {}
    start = time.monotonic()
    hung = False
    seen, changed = progress(), start
    while any(p.poll() is None for p in procs.values()):
        now = time.monotonic() - start
        if (written := progress()) != seen:
            seen, changed = written, time.monotonic()
        elif time.monotonic() - changed > stall:
            hung = True
            stop(procs.values())
            break
        pids = {**(extra or {})}
        for name, p in procs.items():
            if p.poll() is None:
                pids[name] = p.pid
                kids = [c for c in children(p.pid) if "resource_tracker" not in _cmdline(c)]
                for k, child in enumerate(kids, 1):
                    pids[f"{name}/child{k}"] = child
        for name, pid in pids.items():
            kib = rss_kib(pid)
            if kib is not None:
                samples.setdefault(name, []).append((round(now, 1), kib))
        time.sleep(every)
    return {"seconds": round(time.monotonic() - start, 1), "hung": hung, "memory": growth(samples)}


def growth(samples: dict[str, list]) -> dict:
    out = {}
    for name, series in samples.items():
        if len(series) < 3:
            continue
        end = series[-1][0]
        after = [kib for t, kib in series if t >= WARMUP * end]
        first, last = after[0], after[-1]
        out[name] = {"first_mib": round(first / 1024, 1), "last_mib": round(last / 1024, 1),
                     "peak_mib": round(max(kib for _, kib in series) / 1024, 1),
                     "growth": round((last - first) / first, 4), "samples": len(series)}
    return out


def soak_head2head(n: int, outdir: Path) -> dict:
    cmd = [sys.executable, str(ROOT / "metapvp/exe/head2head.py"), "--p1", "heuristic", "--p2", "maxdamage",
           "--num-matches", str(n), "--workers", "2", "--quiet", "--outdir", str(outdir / "h2h"),
           "--memory-every", str(max(1, n // 2 // SELF_SAMPLES))]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    out = watch({"head2head": proc}, progress=lambda: files_under(outdir / "h2h"))
    results = outdir / "h2h" / "results.json"
    result = json.loads(results.read_text()) if results.exists() else {}
    by_worker: dict[int, list] = {}
    for m in result.get("memory", []):
        by_worker.setdefault(m["worker"], []).append(m)
    out["warm"] = {f"head2head worker {w + 1}": warm_growth(series) for w, series in sorted(by_worker.items())}
    out.update(battles=result.get("matches", 0), errors=result.get("errors"), exit_code=proc.returncode,
               invalid_choices=result.get("invalid_choices"), turns_per_s=result.get("turns_per_s"))
    return out


def soak_live(n: int, concurrent: int, bot_spec: str, outdir: Path) -> dict:
    server = LocalServer(root=Path(tempfile.mkdtemp(prefix="metapvp-soak-")) / "server", throttle=False).start()
    try:
        common = ["--port", str(server.port), "--max-concurrent", str(concurrent), "--timer",
                  "--memory-every", str(max(1, n // SELF_SAMPLES))]
        bot = subprocess.Popen([sys.executable, str(ROOT / "metapvp/exe/challenge_bot.py"), bot_spec,
                                "--username", "soakbot", "--num-battles", str(n), "--outdir", str(outdir / "bot"),
                                *common], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(5)  # logged in before the first challenge
        ev = subprocess.Popen([sys.executable, str(ROOT / "metapvp/exe/smogon_eval.py"), "heuristic",
                               "--username", "soakeval", "--challenge", "soakbot", "--num-matches", str(n),
                               "--outdir", str(outdir / "eval"), "--quiet", *common],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        out = watch({"challenge_bot": bot, "smogon_eval": ev}, extra={"server": server.proc.pid},
                    progress=lambda: files_under(outdir / "bot"))
        bot_out, _ = bot.communicate()
        ev_out, _ = ev.communicate()
    finally:
        server.stop()
    summary = json.loads(bot_out.strip().splitlines()[-1]) if bot_out.strip() else {}
    result = json.loads(ev_out.strip().splitlines()[-1]) if ev_out.strip() else {}
    out["warm"] = {name: warm_growth(report.get("memory") or [])
                   for name, report in (("challenge_bot", summary), ("smogon_eval", result))}
    out["samples"] = {"challenge_bot": summary.get("memory"), "smogon_eval": result.get("memory")}
    # smogon_eval stopped by a hang writes nothing: the bot's own count stands then
    out.update(battles=result.get("played", summary.get("battles", 0)), bot=summary.get("player", bot_spec),
               bot_wins=summary.get("wins"),
               errors=(result.get("errors") or 0) + (summary.get("errors") or 0),
               invalid_choices=(result.get("invalid_choices") or 0) + (summary.get("invalid_choices") or 0),
               lost_on_time=(result.get("lost_on_time") or 0) + (summary.get("lost_on_time") or 0),
               bot_decision_ms=summary.get("decision_ms"), exit_codes=[bot.returncode, ev.returncode])
    return out


def soak_probe(n: int) -> dict:
    from metapvp.arena import play
    from metapvp.engine import Simulator, memory
    from metapvp.players import make_player
    sim = Simulator()
    a, b = make_player("heuristic", seed=1), make_player("maxdamage", seed=2)
    step, series, errors, start = max(1, n // SELF_SAMPLES), [], 0, time.monotonic()
    for first in range(0, n, step):
        errors += sum(r.winner is None for r in play(a, b, "gen9randombattle", range(first, min(n, first + step)),
                                                     seed=0, backend=sim))
        series.append({"battles": min(n, first + step), **memory.sample()})
        print("probe " + json.dumps(series[-1]), flush=True)
    sim.close()
    return {"battles": n - errors, "errors": errors, "seconds": round(time.monotonic() - start, 1), "hung": False,
            "invalid_choices": None, "series": series,
            "memory": {"this process": growth_of([(s["battles"], s["rss_mib"] * 1024) for s in series])},
            "warm": {"this process": warm_growth(series)}}


def warm_growth(series: list) -> dict | None:
    """A process's own samples (metapvp.engine.memory), from the first one after its damage-results
    cache first turned over (its size fell: the bounded caches are full) to the last: resident
    set and V8's total heap. None where the caches never filled."""
    def results(s):
        return sum(v["cached"]["results"] for v in s["v8"].values())
    turned = next((i for i in range(1, len(series)) if results(series[i]) < results(series[i - 1])), None)
    if turned is None or len(series) - turned < 2:
        return None
    first, last = series[turned], series[-1]
    heap = [sum(v["heap_total_mib"] for v in s["v8"].values()) for s in (first, last)]
    return {"from_battle": first["battles"], "to_battle": last["battles"],
            "rss_mib": [first["rss_mib"], last["rss_mib"]],
            "growth": round((last["rss_mib"] - first["rss_mib"]) / first["rss_mib"], 4),
            "v8_heap_total_mib": heap, "v8_growth": round((heap[1] - heap[0]) / heap[0], 4)}


def growth_of(series: list) -> dict:
    return growth({"x": series})["x"]


def table(report: dict) -> str:
    rows = []
    for phase, r in report.items():
        rows.append(f"{phase}: {r['battles']} battles in {r['seconds']:.0f} s, errors {r['errors']}, "
                    f"invalid choices {r['invalid_choices']}, hung {r['hung']}")
        if r.get("bot_decision_ms"):
            t = r["bot_decision_ms"]
            rows.append(f"  {r['bot']} won {r['bot_wins']} of {r['battles']} against heuristic; lost on time "
                        f"{r['lost_on_time']}; ms from request to choice over {t['n']} choices: p50 {t['p50']}, "
                        f"p90 {t['p90']}, p99 {t['p99']}, max {t['max']}")
        for name, m in r["memory"].items():
            rows.append(f"  {name:<24} {m['first_mib']:>8.1f} -> {m['last_mib']:>8.1f} MiB "
                        f"({100 * m['growth']:+.1f}%), peak {m['peak_mib']:.1f}")
        for name, w in r.get("warm", {}).items():
            rows.append(f"  warm, {name}: " + ("the caches never filled" if w is None else
                        f"battles {w['from_battle']} -> {w['to_battle']}: {w['rss_mib'][0]:.1f} -> "
                        f"{w['rss_mib'][1]:.1f} MiB ({100 * w['growth']:+.1f}%), V8 heap "
                        f"{w['v8_heap_total_mib'][0]:.1f} -> {w['v8_heap_total_mib'][1]:.1f} MiB "
                        f"({100 * w['v8_growth']:+.1f}%)"))
    return "\n".join(rows)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--h2h", type=int, default=10_000)
    ap.add_argument("--live", type=int, default=1_000)
    ap.add_argument("--concurrent", type=int, default=4)
    ap.add_argument("--bot", default="agent", help="the player challenge_bot.py serves in the live part")
    ap.add_argument("--probe", type=int, default=0, help="battles of the in-process memory probe (3.)")
    ap.add_argument("--outdir", type=Path, default=ROOT / "runs" / "soak")
    args = ap.parse_args(argv)
    args.outdir.mkdir(parents=True, exist_ok=True)
    report = {}
    if args.h2h:
        report["head2head"] = soak_head2head(args.h2h, args.outdir)
    if args.live:
        report["live"] = soak_live(args.live, args.concurrent, args.bot, args.outdir)
    if args.probe:
        report["probe"] = soak_probe(args.probe)
    (args.outdir / "soak.json").write_text(json.dumps(report, indent=2) + "\n")
    print(table(report))
    bad = any(r["hung"] or r["errors"] or r.get("lost_on_time") or r["battles"] < n
              for r, n in ((report.get("head2head"), args.h2h), (report.get("live"), args.live),
                           (report.get("probe"), args.probe)) if r)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
