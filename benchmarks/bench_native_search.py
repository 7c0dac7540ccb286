"""Benchmarks the native search (search-rs/, metapvp.engine.native) on a poke-engine state:
its iterations a second beside poke-engine's own MCTS on the same state (each given the same
milliseconds, one after the other, one core), and the time a decision takes at several
iteration budgets (median and 99th percentile over --decisions searches, seeds 0, 1, ...).

    ./rp benchmarks/bench_native_search.py [--ms 1000] [--runs 3] [--budgets 1000,10000,50000] [--decisions 20]

The state is the crate's example (two small gen 9 teams) until states are made from battles. A
benchmark, not a test: the figures depend on the machine and its load; run it on an idle machine."""
import argparse
import time

import numpy as np

from metapvp.engine.native import native


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ms", type=int, default=1000, help="milliseconds each search runs for the speed rows")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--budgets", default="1000,10000,50000", help="iterations per decision, comma-separated")
    ap.add_argument("--decisions", type=int, default=20)
    args = ap.parse_args(argv)
    m = native()
    state = m.example_state()
    ours, theirs = [], []
    for run in range(args.runs):
        start = time.perf_counter()
        n = m.search(state, ms=args.ms, seed=run)["iterations"]
        ours.append(n / (time.perf_counter() - start))
        start = time.perf_counter()
        n = m.engine_mcts(state, ms=args.ms)["iterations"]
        theirs.append(n / (time.perf_counter() - start))
    print(f"iterations a second over {args.runs} runs of {args.ms} ms each (median):")
    print(f"  metapvp search (decoupled PUCT, priors)   {np.median(ours):>10,.0f}")
    print(f"  poke-engine's own MCTS (UCB1, no prior)   {np.median(theirs):>10,.0f}")
    print(f"  ratio                                     {np.median(ours) / np.median(theirs):>10.2f}")
    print(f"\ndecision time, {args.decisions} searches a budget:")
    print(f"  {'iterations':>10} {'median ms':>10} {'p99 ms':>8}")
    for budget in [int(b) for b in args.budgets.split(",")]:
        times = []
        for seed in range(args.decisions):
            start = time.perf_counter()
            m.search(state, iterations=budget, seed=seed)
            times.append((time.perf_counter() - start) * 1000)
        print(f"  {budget:>10} {np.median(times):>10.1f} {np.percentile(times, 99):>8.1f}")


if __name__ == "__main__":
    main()
