"""Benchmarks the bridge (headless client + encoder + the Python<->V8 call) on recorded battles,
against the simulator's own cost per decision measured in the same V8 context.

    ./rp scripts/bench_engine.py [--format gen9randombattle] [--battles 64] [--batch 1,8,32,128]

Prints lines/s and decisions/s through the bridge for each batch size, the fixed cost of one
call, and the bridge's cost per decision as a share of the simulator's. A benchmark, not a test:
the figures depend on the machine and its load."""
import argparse
import json
import time

import numpy as np

from metapvp.engine import Engine, Simulator, context
from metapvp.engine.golden import play_random


def record(fmt, n, seed):
    sim, rng = Simulator(), np.random.default_rng(seed)
    return [play_random(sim, fmt, f"{seed},{i},5,5", rng) for i in range(n)]


def bench_raw(fmt, n, seed):
    v8 = context()
    start = time.perf_counter()
    out = json.loads(v8.eval(f"metapvp.playRaw({json.dumps({'format': fmt, 'battles': n, 'seed': f'{seed},1,1,1'})})"))
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
            engine.close(key, p)
    seconds = time.perf_counter() - start
    return {"batch": batch, "lines": lines, "decisions": decisions, "calls": calls, "seconds": seconds}


def bench_client_only(battles):
    """The same streams through bare @pkmn/client Battles in the same V8: the bridge's floor."""
    streams = [b["streams"][p] for b in battles for p in ("p1", "p2")]
    perspectives = [p for _ in battles for p in ("p1", "p2")]
    v8 = context()
    v8.eval(f"globalThis.__streams = {json.dumps(streams)}; globalThis.__persp = {json.dumps(perspectives)}")
    start = time.perf_counter()
    pumps = v8.eval("metapvp.feedClientOnly(__streams, __persp)")
    seconds = time.perf_counter() - start
    v8.eval("delete globalThis.__streams; delete globalThis.__persp")
    return seconds, pumps


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
    args = ap.parse_args()

    context()  # load V8 before timing anything
    raw = bench_raw(args.format, args.battles, args.seed)
    sim_us = raw["seconds"] / raw["decisions"] * 1e6
    print(f"simulator alone ({args.format}, {raw['battles']} battles, in mini-racer): "
          f"{raw['turns'] / raw['seconds']:.0f} turns/s, {raw['decisions'] / raw['seconds']:.0f} decisions/s, "
          f"{sim_us:.0f} us/decision")
    overhead = call_overhead()
    print(f"one bridge call, empty: {overhead * 1e3:.3f} ms")

    battles = record(args.format, args.battles, args.seed)
    bench_bridge(battles, 32)  # warm up the JIT on this data
    seconds, pumps = bench_client_only(battles)
    decisions = sum(len(b["choices"]) for b in battles)
    client_us = seconds / decisions * 1e6
    print(f"@pkmn/client alone on the same streams: {pumps / seconds:.0f} messages-groups/s, "
          f"{client_us:.0f} us/decision = {client_us / sim_us:.1%} of the simulator's")
    print(f"\n{'batch':>6} {'calls':>6} {'lines/s':>10} {'decisions/s':>12} {'us/decision':>12} {'vs simulator':>13}")
    for batch in (int(b) for b in args.batch.split(",")):
        r = bench_bridge(battles, batch)
        us = r["seconds"] / r["decisions"] * 1e6
        print(f"{batch:>6} {r['calls']:>6} {r['lines'] / r['seconds']:>10.0f} {r['decisions'] / r['seconds']:>12.0f} "
              f"{us:>12.1f} {us / sim_us:>12.1%}")
    print("\n'vs simulator': the bridge's time per decision (client, encoder, the Python<->V8 call, numpy "
          "views) as a share of the simulator's own; the goal is <= 10%, the client alone sets the floor above.")


if __name__ == "__main__":
    main()
