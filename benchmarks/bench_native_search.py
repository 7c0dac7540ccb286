"""Benchmarks the native search (search-rs/, metapvp.engine.native) on poke-engine states written
from battles (js/src/enginestate.js: worlds drawn from p1's view at its decisions in random gen 9
battles, as the native players search them): its iterations a second (with the engine's
evaluation and with the leaf value `agent` plays, leaf=search) beside poke-engine's own MCTS on the same states
(each given the same milliseconds, the three back to back on each state, one core; the ratio is
taken state by state, so that a change in the machine's load falls on both sides of it), and
the time a decision takes at several iteration budgets (median and 99th percentile over the
states, one search each).

    ./rp benchmarks/bench_native_search.py [--states 40] [--ms 200] [--budgets 1000,3000,10000,50000]
    ./rp benchmarks/bench_native_search.py --example      the crate's example state instead
    ./rp benchmarks/bench_native_search.py --leaf FILE    another leaf value than agent's in the leaf row

A benchmark, not a test: the figures depend on the machine and its load; run it on an idle machine."""
import argparse
import time
from pathlib import Path

import numpy as np

from metapvp.engine.native import SEARCH_VALUE, leaf_model, native
from metapvp.engine.v8 import checks_context


def battle_states(count: int) -> list[str]:
    """`count` states of worlds drawn in random gen 9 battles, spread over the battles' course."""
    drawn = checks_context().checks("engineStates", {"format": "gen9randombattle", "battles": 12,
                                                     "seed": [3, 1, 4, 1], "max": 400})["drawn"]
    return [drawn[i] for i in np.linspace(0, len(drawn) - 1, count).astype(int)]


def uniform(state: str) -> list[float]:
    return [1.0] * len(native().options(state)[0])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--states", type=int, default=40)
    ap.add_argument("--ms", type=int, default=200, help="milliseconds each search runs for the speed rows")
    ap.add_argument("--budgets", default="1000,3000,10000,50000", help="iterations per decision, comma-separated")
    ap.add_argument("--example", action="store_true", help="the crate's example state, searched --states times")
    ap.add_argument("--leaf", default=str(SEARCH_VALUE), help="the leaf value of the leaf row (default: agent's)")
    args = ap.parse_args(argv)
    m = native()
    states = [m.example_state()] * args.states if args.example else battle_states(args.states)
    leaf = leaf_model(args.leaf).search_args()
    runs = {   # each as the players run it: a prior at our root (uniform here, as mcts gives)
        "ours": lambda state, i: m.search(state, ms=args.ms, seed=i, priors=uniform(state))["iterations"],
        "ours, learned leaves": lambda state, i: m.search(state, ms=args.ms, seed=i, priors=uniform(state),
                                                         **leaf)["iterations"],
        "theirs": lambda state, i: m.engine_mcts(state, ms=args.ms)["iterations"],
    }
    # the three searches of a state run back to back, in turn first, so that a change in the
    # machine's load falls on all three alike; the ratios are taken state by state
    per_state = {name: [] for name in runs}   # iterations a second of each search of each state
    order = list(runs)
    for i, state in enumerate(states):
        for name in order[i % len(order):] + order[:i % len(order)]:
            start = time.perf_counter()
            done = runs[name](state, i)
            per_state[name].append(done / (time.perf_counter() - start))
    rate = {name: float(np.mean(r)) for name, r in per_state.items()}
    theirs = np.array(per_state["theirs"])

    def ratio(name: str) -> str:
        r = np.array(per_state[name]) / theirs
        return f"{np.median(r):>10.2f}   (states' quartiles {np.percentile(r, 25):.2f} to {np.percentile(r, 75):.2f})"
    where = "the example state" if args.example else "states from battles"
    print(f"iterations a second over {len(states)} {where}, {args.ms} ms each search (mean over the states):")
    print(f"  metapvp search (PUCT at our root, UCB1 elsewhere)   {rate['ours']:>10,.0f}")
    print(f"  the same, the leaf value {Path(args.leaf).name:<26} {rate['ours, learned leaves']:>10,.0f}")
    print(f"  poke-engine's own MCTS (UCB1, no prior)             {rate['theirs']:>10,.0f}")
    print("ratio to poke-engine's on the same state, the median over the states:")
    print(f"  ours                                                {ratio('ours')}")
    print(f"  ours with that leaf value                           {ratio('ours, learned leaves')}")
    print("\ndecision time (one world, one core), a search of each state a budget:")
    print(f"  {'iterations':>10} {'median ms':>10} {'p99 ms':>8}")
    for budget in [int(b) for b in args.budgets.split(",")]:
        times = []
        for seed, state in enumerate(states):
            start = time.perf_counter()
            m.search(state, iterations=budget, seed=seed, priors=uniform(state))
            times.append((time.perf_counter() - start) * 1000)
        print(f"  {budget:>10} {np.median(times):>10.1f} {np.percentile(times, 99):>8.1f}")


if __name__ == "__main__":
    main()
