"""Fits the native search's learned leaf value: `agent`'s (static/models/native-value-search.json)
is `--target search`'s. What each target is, how positions are kept and judged:
metapvp/training/leafvalue.py.

    metapvp fit-leaf [--battles 5000] [--seed 1] [--write FILE.json]
    metapvp fit-leaf --logs runs/h2h/RUN [RUN ...] --target search [--search-iterations 10000]
        [--search-leaf FILE.json] [--hidden UNITS] --write FILE.json
    metapvp fit-leaf --logs RUN [RUN ...] --target games [--game-iterations 2000] [--games-per-battle 4]
    metapvp fit-leaf ... --drop FEATURE [FEATURE ...]     the same fit without those features

Prints the judged models on the battles held out, the weights, and last the result as JSON."""
from __future__ import annotations

import argparse
import datetime
import json
import sys
from pathlib import Path

from metapvp import ROOT
from metapvp.engine.native import native
from metapvp.training.leafvalue import (
    GamesTarget,
    SearchTarget,
    fit_and_judge,
    model_file,
    positions,
    recorded_positions,
    write_whole,
)


def parse_args(argv=None):
    ap = argparse.ArgumentParser(prog="metapvp fit-leaf", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--battles", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--player", default="heuristic", help="the scripted player both sides play")
    ap.add_argument("--explore", type=float, default=0.1, help="share of decisions played at random")
    ap.add_argument("--logs", type=Path, nargs="+", metavar="RUN",
                    help="head2head run directories whose kept logs are the battles (instead of --player's)")
    ap.add_argument("--target", choices=("outcome", "search", "games"), default="outcome",
                    help="fit to how the battles ended, to what the search makes of each position, or to how "
                         "the search's own games from them end (the last two: --logs)")
    ap.add_argument("--search-iterations", type=int, default=10_000, help="--target search: the search's budget")
    ap.add_argument("--search-leaf", type=Path,
                    help="--target search or games: the relative model the search values leaves by")
    ap.add_argument("--game-iterations", type=int, default=2000, help="--target games: the search's budget a decision")
    ap.add_argument("--games-per-battle", type=int, default=4, help="--target games: games played from each battle")
    ap.add_argument("--write", type=Path, help="write the fitted model here (static/models/native-value.json)")
    ap.add_argument("--cache", type=Path, default=ROOT / "runs" / "leaf-value", help="where positions are kept")
    ap.add_argument("--drop", nargs="+", default=[], metavar="FEATURE",
                    help="fit without these features (what they add, on the same positions)")
    ap.add_argument("--hidden", type=int, default=0, metavar="UNITS",
                    help="--target search: a hidden layer of this many tanh units beside the linear model")
    args = ap.parse_args(argv)
    if args.target in ("search", "games") and not args.logs:
        ap.error(f"--target {args.target} reads the positions of kept battles: give --logs")
    if args.hidden and args.target != "search":
        ap.error("--hidden is for --target search")
    return ap, args


def main(argv=None) -> int:
    ap, args = parse_args(argv)
    names = native().feature_names()
    unknown = [n for n in args.drop if n not in names or n == "engine_eval"]
    if unknown:
        ap.error(f"--drop {' '.join(unknown)}: not a feature that can be left out ({', '.join(names[:-1])})")
    kept = [k for k, n in enumerate(names) if n not in args.drop]
    try:
        target = (SearchTarget(args.search_iterations, args.search_leaf) if args.target == "search" else
                  GamesTarget(args.game_iterations, args.search_leaf, args.games_per_battle)
                  if args.target == "games" else None)
        data = (recorded_positions(args.logs, args.cache, target) if args.logs
                else positions(args.battles, args.seed, args.player, args.explore, args.cache))
    except ValueError as e:
        ap.error(str(e))
    data = {**data, "x": data["x"][:, kept]}
    names = [names[k] for k in kept]
    result, w, rows = fit_and_judge(data, names, target, args.hidden)
    if args.drop:
        result["dropped"] = args.drop
    print(f"{result['positions']} positions of {result['battles']} battles; judged on {result['held_out']} "
          f"of a fifth of the battles held out" + {"search": " against the search's values",
                                                   "games": ", the search's games"}.get(args.target, ""))
    for who, row in rows.items():
        print(f"  {who:<18} {row}")
    print("weights:", ", ".join(f"{n} {v:+.2f}" for n, v in zip(names, w)))
    if args.write:
        fitted = {"date": datetime.date.today().isoformat(),
                  "command": "metapvp fit-leaf " + " ".join(argv if argv is not None else sys.argv[1:]),
                  **({"logs": [str(r) for r in args.logs]} if args.logs else
                     {"player": args.player, "explore": args.explore}), **result}
        text = model_file(data, names, target, args.hidden, fitted)
        write_whole(args.write, lambda f: f.write(text.encode()))   # its folder made, and written whole
        print(f"wrote {args.write}")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
