"""What the value network costs the search a leaf: the native search's iterations in a fixed time
on the same positions, valuing its leaves by the engine's evaluation, the linear leaf value the
shipped `agent` uses and the value network, side by side in one run (times: run it on an idle
machine). The positions are the starts of random battles and positions further into self-play
games (shards of `metapvp selfplay`), so that the bench and the field are not all fresh.

    ./rp scripts/value_cost.py --value runs/value/r1/value.json [--shards runs/selfplay/r1]
        [--positions 40] [--ms 200]

Prints, per value, the iterations a second (median over the positions), microseconds an
iteration and the ratio to the engine's evaluation; the last line is the result as JSON."""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

from metapvp.engine.native import SEARCH_VALUE, leaf_model, native
from metapvp.value.selfplay import SelfPlay, finished_shards, read_shard, shard_path, starts


def positions(shards: Path | None, n: int) -> list[str]:
    """`n` positions: spread over the games of the first shard of `shards`, else random battles'
    starts."""
    if shards is None:
        return starts(SelfPlay(seed=11, games_per_shard=n), 0)
    found = finished_shards(shards)
    if not found:
        raise SystemExit(f"{shards}: no self-play shards")
    games = read_shard(shard_path(shards, found[0]))
    states = [g["states"][min(len(g["states"]) - 1, k % 12 * 3)] for k, g in enumerate(games)]
    return states[:n]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--value", type=Path, required=True, help="a value network (value.json of metapvp fit-value)")
    ap.add_argument("--shards", type=Path, help="a self-play run whose positions to search (default: battles' starts)")
    ap.add_argument("--positions", type=int, default=40)
    ap.add_argument("--ms", type=int, default=200, help="the search's time a position")
    args = ap.parse_args(argv)
    m = native()
    states = positions(args.shards, args.positions)
    values = {"engine evaluation": {}, "linear (agent's)": leaf_model(SEARCH_VALUE).search_args(),
              "value network": {"value": str(args.value)}}
    m.value_logits(str(args.value), states[:1])   # read the file before the clock runs
    rates = {name: [] for name in values}
    for k, state in enumerate(states):
        for name, leaf in values.items():   # interleaved, so that a slower stretch weighs on all alike
            r = m.search(state, ms=args.ms, seed=k, **leaf)
            rates[name].append(r["iterations"] / (args.ms / 1000))
    base = statistics.median(rates["engine evaluation"])
    result = {}
    print(f"{len(states)} positions, {args.ms} ms a search", file=sys.stderr)
    print(f"{'leaves valued by':<22}{'iterations/s':>14}{'us/iteration':>14}{'vs engine':>11}", file=sys.stderr)
    for name, rs in rates.items():
        med = statistics.median(rs)
        result[name] = {"iterations_per_s": round(med), "us_per_iteration": round(1e6 / med, 2),
                        "ratio": round(med / base, 4)}
        print(f"{name:<22}{med:>14,.0f}{1e6 / med:>14.2f}{med / base:>11.3f}", file=sys.stderr)
    print(json.dumps({"positions": len(states), "ms": args.ms, "values": result}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
