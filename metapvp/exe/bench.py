"""Benchmarks the whole stack against the raw simulator, side by side in one run.

    ./rp metapvp/exe/bench.py [--format gen9randombattle] [--battles 100] [--workers N]
                              [--contracts singles-v1,singles-v2] [--warmup N]

Full stack: random against random through everything -- the in-process simulator, the headless
clients, the encoder, the tensors read in Python, the actions chosen in Python (numpy) -- one
worker process per core, each stepping --concurrency battles per call. Raw simulator: a small
Node script driving the same simulator with random legal choices and nothing else
(js/tools/raw-sim.mjs). Both run on one core (pinned to one CPU, V8's helper threads included),
then on all cores at once (one process per core, unpinned).

A second reference, "raw, mini-racer", plays the same raw battles inside mini-racer's V8, the
engine the full stack runs on (Node ships an older V8): the ratio against it is the cost of
the clients, the encoder and Python alone. With several --contracts, the full stack runs once per
contract and the last lines compare each with the first (e.g. the battle knowledge of singles-v2
against singles-v1). With --warmup N, each full-stack process first plays N other battles off
the clock, as a long run has by then (the JIT warm; for singles-v2, the sets of most species
drawn, which the first battles of a process pay for). A benchmark, not a test: run it on an
otherwise idle machine."""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import subprocess
import time

from metapvp import ROOT
from metapvp.arena import play
from metapvp.engine import Simulator, context
from metapvp.engine.v8 import checks_context
from metapvp.players import RandomPlayer


def raw_node(fmt: str, battles: int, seed: int) -> dict:
    out = subprocess.run(["node", "tools/raw-sim.mjs", fmt, str(battles), str(seed)], cwd=ROOT / "js",
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def raw_mini_racer(fmt: str, battles: int, seed: int) -> dict:
    v8 = checks_context()  # loaded before the clock starts, as for the full stack
    spec = {"format": fmt, "battles": battles, "seed": f"{seed},2,3,4"}  # raw-sim.mjs's seeds
    start = time.perf_counter()
    out = v8.checks("playRaw", spec)
    out["seconds"] = time.perf_counter() - start
    return out


def full_stack(fmt: str, battles: int, seed: int, concurrency: int, contract: str = "singles-v1",
               warmup: int = 0) -> dict:

    class Counting(RandomPlayer):
        decisions = 0

        def act(self, decisions, greedy=False):
            Counting.decisions += len(decisions)
            return super().act(decisions, greedy)

    context(contract)  # load V8 before the clock starts, as a long run would have
    sim = Simulator(contract)
    if warmup:  # other battles first, untimed: the JIT warm and every species' sets drawn
        play(RandomPlayer(seed), RandomPlayer(seed + 1), fmt, range(warmup), seed=seed + 10_000,
             concurrency=concurrency, backend=sim)
    start = time.perf_counter()
    turns = sum(r.turns for r in play(Counting(seed), Counting(seed + 1), fmt, range(battles),
                                      seed=seed, concurrency=concurrency, backend=sim))
    return {"battles": battles, "turns": turns, "decisions": Counting.decisions,
            "seconds": time.perf_counter() - start}


def _pin(cpus):
    if cpus:
        os.sched_setaffinity(0, cpus)  # inherited by the Node child and by V8's threads


def _run(job):
    fn, args = job
    return fn(*args)


def in_parallel(fn, jobs, cpus=None):
    """Runs jobs at once, one fresh process each (optionally all pinned to `cpus`); turns/s and
    decisions/s summed over processes, over the longest one's time."""
    with mp.get_context("spawn").Pool(len(jobs), initializer=_pin, initargs=(cpus,)) as pool:
        outs = pool.map(_run, [(fn, j) for j in jobs])
    seconds = max(o["seconds"] for o in outs)
    return {"turns": sum(o["turns"] for o in outs), "decisions": sum(o["decisions"] for o in outs),
            "seconds": seconds, "battles": sum(o["battles"] for o in outs)}


def rate(r, key):
    return r[key] / r["seconds"]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--format", default="gen9randombattle")
    ap.add_argument("--battles", type=int, default=100, help="battles per process")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes for 'all cores'")
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--contracts", default="singles-v1", help="comma-separated; the full stack runs with each")
    ap.add_argument("--warmup", type=int, default=0,
                    help="battles each full-stack process plays before its clock starts (as in a long run)")
    args = ap.parse_args(argv)
    contracts = args.contracts.split(",")
    W, n = args.workers, args.battles
    one_cpu = {min(os.sched_getaffinity(0))}

    rows = {}
    rows["raw, 1 core"] = in_parallel(raw_node, [(args.format, n, args.seed)], one_cpu)
    rows["raw, mini-racer"] = in_parallel(raw_mini_racer, [(args.format, n, args.seed)], one_cpu)
    full = {c: ("full" if len(contracts) == 1 else f"full {c}") for c in contracts}
    for c in contracts:
        rows[f"{full[c]}, 1 core"] = in_parallel(full_stack, [(args.format, n, args.seed, args.concurrency, c,
                                                                          args.warmup)], one_cpu)
    rows[f"raw, {W} cores"] = in_parallel(raw_node, [(args.format, n, args.seed + w) for w in range(W)])
    for c in contracts:
        rows[f"{full[c]}, {W} cores"] = in_parallel(full_stack, [(args.format, n, args.seed + w, args.concurrency, c,
                                                                 args.warmup) for w in range(W)])
    warm = f", after {args.warmup} untimed" if args.warmup else ""
    print(f"{args.format}, random vs random, {n} battles per process{warm}; '1 core' rows are pinned to CPU "
          f"{min(one_cpu)}\n")
    width = max(len(k) for k in rows) + 2
    print(f"{'':<{width}}{'battles':>8}{'turns':>8}{'seconds':>9}{'turns/s':>10}{'decisions/s':>13}")
    for name, r in rows.items():
        print(f"{name:<{width}}{r['battles']:>8}{r['turns']:>8}{r['seconds']:>9.2f}{rate(r, 'turns'):>10.0f}"
              f"{rate(r, 'decisions'):>13.0f}")
    first = full[contracts[0]]
    raw1, full1 = rate(rows["raw, 1 core"], "turns"), rate(rows[f"{first}, 1 core"], "turns")
    rawW, fullW = rate(rows[f"raw, {W} cores"], "turns"), rate(rows[f"{first}, {W} cores"], "turns")
    if len(contracts) > 1:
        print(f"(the next three lines are for {contracts[0]})")
    same_engine = rate(rows["raw, mini-racer"], "turns")
    print(f"\nfull stack / raw simulator (Node), turns/s:  1 core {full1 / raw1:.0%}   {W} cores {fullW / rawW:.0%}"
          f"   (target >= 70%)")
    print(f"full stack / raw simulator in mini-racer, 1 core:  {full1 / same_engine:.0%}   (the same V8 for both)")
    print(f"speed-up from 1 to {W} cores:  raw {rawW / raw1:.2f}x   full {fullW / full1:.2f}x   "
          f"full's speed-up is {(fullW / full1) / (rawW / raw1):.0%} of raw's (target >= 90%)")
    for c in contracts[1:]:
        d1 = rate(rows[f"{full[c]}, 1 core"], "decisions") / rate(rows[f"{first}, 1 core"], "decisions")
        dW = rate(rows[f"{full[c]}, {W} cores"], "decisions") / rate(rows[f"{first}, {W} cores"], "decisions")
        print(f"{c} / {contracts[0]}, decisions/s:  1 core {d1:.0%}   {W} cores {dW:.0%}")


if __name__ == "__main__":
    main()
