"""Benchmarks the search at decision time (js/src/search.js, metapvp.players.search): its speed
beside the simulator alone, and its strength and time per decision at several budgets.

    ./rp benchmarks/bench_search.py [--budgets 16,64,256] [--battles 100] [--opponent heuristic]
                                 [--model agent] [--worlds 2] [--suffix h4q16p1] [--seed 0]
                                 [--concurrency 1]

Speed: simulated turns per second inside the search (a turn there is a restore of the drawn
world and a step, or a step of a visit already under way) beside the simulator alone playing
random battles in the same V8 context (rawsim), and the ratio.
Strength: for each budget, `search{B}x{W}{SUFFIX}:MODEL` against --opponent over --battles battles (seats
alternating, one process, one core): its win rate with the 95% interval, and milliseconds per
search (median, 99th percentile). With --concurrency 1 (the default) one battle is decided at a
time; with more, the battles deciding together are searched one after another in one call.
A benchmark, not a test: the figures depend on the machine and
its load; run it on an idle machine."""
import argparse
import time

import numpy as np

from metapvp.arena import play
from metapvp.arena.stats import wilson
from metapvp.engine.v8 import checks_context
from metapvp.players import make_player


def raw_turns_per_s(fmt: str, battles: int, seed: int) -> float:
    v8 = checks_context()
    v8.checks("playRaw", {"format": fmt, "battles": 2, "seed": f"{seed},9,9,9"})  # warm
    start = time.perf_counter()
    out = v8.checks("playRaw", {"format": fmt, "battles": battles, "seed": f"{seed},1,1,1"})
    return out["turns"] / (time.perf_counter() - start)


def strength(spec: str, opponent: str, fmt: str, battles: int, seed: int, concurrency: int) -> dict:
    player, foe = make_player(spec, seed=seed, fmt=fmt), make_player(opponent, seed=seed + 1, fmt=fmt)
    start = time.perf_counter()
    results = list(play(player, foe, fmt, range(battles), seed=seed, concurrency=concurrency))
    seconds = time.perf_counter() - start
    errors = sum(r.error is not None for r in results)
    done = [r for r in results if r.error is None]
    score = (sum(r.winner == "a" for r in done) + 0.5 * sum(r.winner == "tie" for r in done)) / max(1, len(done))
    times = np.asarray(player.times or [0])
    return {"spec": spec, "battles": len(done), "errors": errors, "win": score, "ci": wilson(score, max(1, len(done))),
            "median_ms": float(np.median(times)), "p99_ms": float(np.percentile(times, 99)),
            "nodes": player.nodes / max(1, player.searched),
            "steps_per_s": player.steps / max(1e-9, times.sum() / 1000),
            "failed": player.failed, "seconds": seconds}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--format", default="gen9randombattle")
    ap.add_argument("--budgets", default="16,64,256", help="visits per decision, comma-separated")
    ap.add_argument("--battles", type=int, default=100)
    ap.add_argument("--opponent", default="heuristic")
    ap.add_argument("--model", default="agent")
    ap.add_argument("--worlds", type=int, default=2)
    ap.add_argument("--suffix", default="h4q16p1", help="the rest of the search's compact spec: hM, qQ, pP, s "
                                                        "(metapvp.players.searchconfig)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--concurrency", type=int, default=1, help="battles played at once")
    args = ap.parse_args()

    raw = raw_turns_per_s(args.format, 20, args.seed)
    print(f"simulator alone ({args.format}, random battles, in mini-racer): {raw:,.0f} turns/s")
    print(f"{'player':<28} {'vs':<12} {'battles':>7} {'win':>6} {'95% CI':>13} {'ms median':>9} {'ms p99':>7} "
          f"{'visits':>6} {'turns/s in search':>17} {'of raw':>6}")
    for budget in [int(b) for b in args.budgets.split(",")]:
        r = strength(f"search{budget}x{args.worlds}{args.suffix}:{args.model}", args.opponent, args.format,
                     args.battles, args.seed, args.concurrency)
        print(f"{r['spec']:<28} {args.opponent:<12} {r['battles']:>7} {r['win']:>6.3f} "
              f"{r['ci'][0]:>6.3f}-{r['ci'][1]:.3f} {r['median_ms']:>9.0f} {r['p99_ms']:>7.0f} {r['nodes']:>6.0f} "
              f"{r['steps_per_s']:>17,.0f} {r['steps_per_s'] / raw:>6.2f}"
              + (f"  ({r['errors']} errors, {r['failed']} searches failed)" if r["errors"] or r["failed"] else ""),
              flush=True)


if __name__ == "__main__":
    main()
