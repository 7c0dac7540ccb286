"""Two settings of the native search matched inside the engine, in minutes where head2head takes
a quarter of an hour: a quick look before the battles that decide.

From --per-battle evenly spaced positions of each battle head2head kept (replayed as
`metapvp fit-leaf` does, the states kept in the same cache), two games each: A as side one
against B as side two, and B as side one against A, with the same seed (search-rs/src/selfplay.rs:
each side its own search, no prior, its most visited option). Both sides know the whole state,
as in one of the search's worlds: this is not the battle the players play, and a verdict here
is a guess at head2head's until it has been checked against it. A pair of games from one
position share their start and seed; the score is A's share of the games that ended, its interval
counting games as independent, and the pairs' split is printed beside it.

    ./rp studies/engine_match.py --logs RUN [RUN ...] --a LEAF --b LEAF [--iterations 2000]
        [--b-iterations N] [--per-battle 2] [--max-turns 200]

LEAF: engine (the engine's evaluation), learned or search (the shipped leaf values), or a .json
file `metapvp fit-leaf` wrote. The last line of stdout is the result as JSON."""
from __future__ import annotations

import argparse
import json
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from metapvp import ROOT
from metapvp.arena.stats import wilson
from metapvp.engine.native import native
from metapvp.players.native import NativeConfig
from metapvp.training.leafvalue import recorded_states, spread_starts


def leaf_args(leaf: str, prefix: str = "") -> dict:
    """self_play's arguments that value one side's leaves by `leaf` (as a native player's `leaf=`
    names it), their names prefixed with `prefix`."""
    try:
        args = NativeConfig(leaf=leaf).leaf_args()
    except ValueError as e:   # neither a name nor a file this module reads
        raise SystemExit(f"leaf {leaf!r}: {e}") from None
    return {prefix + k: v for k, v in args.items()}


def match(states: list[str], starts: list[int], a: str, b: str, iterations: int, b_iterations: int,
          max_turns: int) -> list[tuple[float | None, float | None]]:
    """For each start, A's score in the game it plays as side one and in the one as side two
    (1 won, 0 lost, None where max_turns ran out)."""
    engine = native()
    a_first = {**leaf_args(a), "foe_iterations": b_iterations, **leaf_args(b, "foe_")}
    b_first = {**leaf_args(b), "foe_iterations": iterations, **leaf_args(a, "foe_")}

    def one(k: int) -> tuple[float | None, float | None]:
        first = engine.self_play(states[k], iterations, seed=k, max_turns=max_turns, foe=True, **a_first)
        second = engine.self_play(states[k], b_iterations, seed=k, max_turns=max_turns, foe=True, **b_first)
        return first["winner"], None if second["winner"] is None else 1.0 - second["winner"]
    with ThreadPoolExecutor(2) as pool:   # the engine releases the GIL
        out = []
        for done, pair in enumerate(pool.map(one, starts), 1):
            out.append(pair)
            if done % 250 == 0 or done == len(starts):
                print(f"  {done} of {len(starts)} positions played from both seats", file=sys.stderr, flush=True)
        return out


def summary(pairs: list[tuple[float | None, float | None]]) -> dict:
    """A's score over the games that ended, its 95% interval, and how the pairs split."""
    scores = [s for pair in pairs for s in pair if s is not None]
    if not scores:
        raise SystemExit("no game ended within --max-turns")
    p = float(np.mean(scores))
    whole = [pair for pair in pairs if None not in pair]
    return {"games": len(scores), "unfinished": 2 * len(pairs) - len(scores), "a_score": p,
            "a_score_ci95": list(wilson(p, len(scores))),
            "a_won_both": sum(pair == (1.0, 1.0) for pair in whole),
            "b_won_both": sum(pair == (0.0, 0.0) for pair in whole),
            "split": sum(pair[0] != pair[1] for pair in whole)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--logs", type=Path, nargs="+", metavar="RUN", required=True,
                    help="head2head run directories whose kept battles give the positions")
    ap.add_argument("--a", required=True, metavar="LEAF", help="side A's leaf value")
    ap.add_argument("--b", required=True, metavar="LEAF", help="side B's leaf value")
    ap.add_argument("--iterations", type=int, default=2000, help="A's budget a decision (and B's unless told)")
    ap.add_argument("--b-iterations", type=int, help="B's budget a decision")
    ap.add_argument("--per-battle", type=int, default=2, help="positions played from each battle")
    ap.add_argument("--max-turns", type=int, default=200, help="decisions before a game is left unfinished")
    ap.add_argument("--cache", type=Path, default=ROOT / "runs" / "leaf-value", help="where positions are kept")
    args = ap.parse_args(argv)
    if args.iterations < 1 or (args.b_iterations is not None and args.b_iterations < 1):
        ap.error("--iterations and --b-iterations are budgets: 1 or more")
    if args.per_battle < 1:
        ap.error("--per-battle: 1 or more")
    for leaf in (args.a, args.b):
        leaf_args(leaf)   # a leaf that cannot be read is named before anything is replayed
    kept, _ = recorded_states(args.logs, args.cache)
    starts = spread_starts(np.asarray(kept["battle"]), args.per_battle)
    b_iterations = args.b_iterations or args.iterations
    result = {"a": args.a, "b": args.b, "iterations": args.iterations, "b_iterations": b_iterations,
              "positions": len(starts),
              **summary(match(kept["states"], starts, args.a, args.b, args.iterations, b_iterations, args.max_turns))}
    lo, hi = result["a_score_ci95"]
    print(f"A ({args.a}) against B ({args.b}) from {len(starts)} positions, both seats: {result['a_score']:.3f} "
          f"({lo:.3f}-{hi:.3f}) over {result['games']} games; A won both {result['a_won_both']}, B both "
          f"{result['b_won_both']}, split {result['split']}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
