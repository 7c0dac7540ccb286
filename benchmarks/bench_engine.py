"""Benchmarks the bridge (headless client + encoder + the Python<->V8 call) on recorded battles,
against the simulator's own cost per decision measured in the same V8 context.

    ./rp benchmarks/bench_engine.py [--format gen9randombattle] [--battles 64] [--batch 1,8,32,128]
                                 [--warm-battles 64]

Prints lines/s and decisions/s through the bridge for each batch size, the fixed cost of one
call, and the bridge's cost per decision as a share of the simulator's. For singles-v2 it also
prints how many damage results a decision asks for and how many the calculator computes, in a
fresh context and in one that has played --warm-battles other battles first (do results repeat
across battles, so that a longer run or a larger cache would compute fewer?). A benchmark, not a test:
the figures depend on the machine and its load."""
import argparse
import json
import time

import numpy as np

from metapvp.contract import load
from metapvp.engine import Engine, Simulator
from metapvp.engine.v8 import CHECKS_BUNDLE, V8, checks_context
from metapvp.tests.golden import play_random


def record(fmt, n, seed):
    sim, rng = Simulator(), np.random.default_rng(seed)
    return [play_random(sim, fmt, f"{seed},{i},5,5", rng) for i in range(n)]


def bench_raw(fmt, n, seed):
    v8 = checks_context()
    start = time.perf_counter()
    out = v8.checks("playRaw", {'format': fmt, 'battles': n, 'seed': f'{seed},1,1,1'})
    out["seconds"] = time.perf_counter() - start
    return out


def bench_bridge(battles, batch):
    """Feeds every battle's two player streams, `batch` battles at a time, a pump per call."""
    engine = Engine()
    lines = decisions = calls = 0
    start = time.perf_counter()
    for g in range(0, len(battles), batch):
        group = battles[g:g + batch]
        views = [(f"b{g + i}", p, b["streams"][p]) for i, b in enumerate(group) for p in ("p1", "p2")]
        for key, p, _ in views:
            engine.open(key, p)
        for r in range(max(len(s) for _, _, s in views)):
            live = [(k, p, s[r]) for k, p, s in views if r < len(s)]
            feed = [(k, p, m) for k, p, pump in live for m in pump]
            lines += sum(m.count("\n") + 1 for _, _, m in feed)
            out = engine.batch(feed=feed, encode=[(k, p) for k, p, _ in live])
            calls += 1
            decisions += sum(rec.decision for rec in out.records)
            out.obs["action.mask"].sum()  # touch the tensors, as a policy would
            if out.errors:
                raise out.errors[0]
        for key, p, _ in views:
            engine.close_view(key, p)
    seconds = time.perf_counter() - start
    return {"batch": batch, "lines": lines, "decisions": decisions, "calls": calls, "seconds": seconds}


def in_v8(battles, code, contract=None):
    """Times `code` run inside V8 over the battles' streams (set as globalThis.__battles), in
    this process's context for `contract`, or in `contract` where it is a V8 context itself."""
    v8 = contract if isinstance(contract, V8) else checks_context(contract)
    v8.eval(f"globalThis.__battles = {json.dumps([b['streams'] for b in battles])}")
    start = time.perf_counter()
    result = v8.eval(code)
    seconds = time.perf_counter() - start
    v8.eval("delete globalThis.__battles")
    return seconds, result


def bench_client_only(battles):
    """The same streams through bare @pkmn/client Battles in the same V8: the bridge's floor."""
    return in_v8(battles, "metapvp.feedClientOnly(__battles.flatMap(b => [b.p1, b.p2]), "
                          "__battles.flatMap(() => ['p1', 'p2']))")


def bench_engine_in_v8(battles, batch, encode, contract=None):
    """The Python benchmark's feeding, done by JS inside V8: no Python, no JSON in between."""
    return in_v8(battles, f"metapvp.replayEngine(__battles, {batch}, {str(encode).lower()})", contract)


def knowledge_counts(v8, battles):
    """Encodes `battles` in the singles-v2 context `v8`: (seconds, the damage results asked
    for and computed meanwhile)."""
    before = v8.knowledge_stats()
    seconds = bench_engine_in_v8(battles, 32, True, v8)[0]
    after = v8.knowledge_stats()
    return seconds, {k: after[k] - before[k] for k in ("calls", "computed")}


def call_overhead(n=2000):
    engine = Engine()
    start = time.perf_counter()
    for _ in range(n):
        engine.batch()
    return (time.perf_counter() - start) / n


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--format", default="gen9randombattle")
    ap.add_argument("--battles", type=int, default=64)
    ap.add_argument("--batch", default="1,8,32,128", help="comma-separated batch sizes (battles per call)")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--warm-battles", type=int, default=64,
                    help="battles the warm singles-v2 context plays before the measured ones")
    args = ap.parse_args()

    checks_context()  # load V8 before timing anything
    raw = bench_raw(args.format, args.battles, args.seed)
    sim_us = raw["seconds"] / raw["decisions"] * 1e6
    print(f"simulator alone ({args.format}, {raw['battles']} battles, in mini-racer): "
          f"{raw['turns'] / raw['seconds']:.0f} turns/s, {raw['decisions'] / raw['seconds']:.0f} decisions/s, "
          f"{sim_us:.0f} us/decision")
    overhead = call_overhead()
    print(f"one bridge call, empty: {overhead * 1e3:.3f} ms")

    battles = record(args.format, args.battles, args.seed)
    bench_bridge(battles, 32)  # warm up the JIT on this data
    decisions = sum(len(b["choices"]) for b in battles)
    bench_engine_in_v8(battles, 32, True)
    steps = [("@pkmn/client alone (lines and requests applied)", bench_client_only(battles)[0]),
             ("+ metapvp's views, fed in V8, batch 32", bench_engine_in_v8(battles, 32, False)[0]),
             ("+ the encoder, in V8, batch 32", bench_engine_in_v8(battles, 32, True)[0])]
    # singles-v2 adds the battle knowledge; its caches start cold here (every species' sets are
    # drawn on first sight, every damage result computed), as at the start of a run
    seconds, cold = knowledge_counts(checks_context("singles-v2"), battles)
    steps.append(("  the encoder for singles-v2 instead (battle knowledge, cold)", seconds))
    # the same battles in a second context that has played other battles first: the species'
    # sets drawn and the JIT warm, as in a long run, but none of these battles' results cached
    warm = V8(load("singles-v2"), CHECKS_BUNDLE)
    bench_engine_in_v8(record(args.format, args.warm_battles, args.seed + 1), 32, True, warm)
    seconds, warmed = knowledge_counts(warm, battles)
    steps.append((f"  the encoder for singles-v2, warm (after {args.warm_battles} other battles)", seconds))
    r = bench_bridge(battles, 32)
    steps.append(("+ the call from Python (the whole bridge), batch 32", r["seconds"]))
    print(f"\n{'the bridge, built up on the same streams':<66} {'us/decision':>12} {'vs simulator':>13}")
    for name, seconds in steps:
        us = seconds / decisions * 1e6
        print(f"{name:<66} {us:>12.1f} {us / sim_us:>12.1%}")

    print(f"singles-v2 damage results per decision: {cold['calls'] / decisions:.1f} asked, "
          f"{cold['computed'] / decisions:.1f} computed by the calculator (the rest from the cache); "
          f"{warmed['computed'] / decisions:.1f} computed "
          f"after {args.warm_battles} other battles")

    print(f"\n{'batch':>6} {'calls':>6} {'lines/s':>10} {'decisions/s':>12} {'us/decision':>12} {'vs simulator':>13}")
    for batch in (int(b) for b in args.batch.split(",")):
        r = bench_bridge(battles, batch)
        us = r["seconds"] / r["decisions"] * 1e6
        print(f"{batch:>6} {r['calls']:>6} {r['lines'] / r['seconds']:>10.0f} {r['decisions'] / r['seconds']:>12.0f} "
              f"{us:>12.1f} {us / sim_us:>12.1%}")
    print("\n'vs simulator': time per decision as a share of the simulator's own; the goal for the whole "
          "bridge is <= 10%. Each line of the build-up adds one layer to the line above it; the indented "
          "lines are the encoder line with singles-v2's encoder (cold: a process's first battles; warm: the "
          "same battles after others), and the Python call is measured on singles-v1.")


if __name__ == "__main__":
    main()
