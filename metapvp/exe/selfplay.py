"""Self-play inside poke-engine: games from the starts of random battles, played to their end by
the native search for both sides, every decision's state, visits and winner written to a sharded
dataset (what each file holds, and how a run resumes: metapvp/value/selfplay.py).

    metapvp selfplay runs/selfplay/r1 --positions 2000000 [--iterations 2000] [--sample-turns 4]
        [--games-per-shard 200] [--seed 1] [--threads 2] [--ray [ADDRESS]] [--resume]

Prints each shard as it is written (games, positions, positions a second) and last the run's
figures as JSON. Ctrl-C stops it; the shards written stay, and --resume with the same settings
goes on from them."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from metapvp.lifecycle import stop_on_signals
from metapvp.value.selfplay import RunMismatch, SelfPlay


def parse_args(argv=None):
    ap = argparse.ArgumentParser(prog="metapvp selfplay", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir", type=Path, help="the run's directory (its shards, run.json, metrics)")
    ap.add_argument("--positions", type=int, required=True, help="play until the run holds this many positions")
    ap.add_argument("--format", default="gen9randombattle")
    ap.add_argument("--seed", type=int, default=1, help="the starts' and the games' seed")
    ap.add_argument("--iterations", type=int, default=2000, help="the search's iterations a decision")
    ap.add_argument("--sample-turns", type=int, default=4,
                    help="the first decisions of a game played by drawing by the visits, so that games part")
    ap.add_argument("--max-turns", type=int, default=200, help="decisions before a game is left unfinished")
    ap.add_argument("--games-per-shard", type=int, default=200)
    ap.add_argument("--threads", type=int, default=2, help="games at once on this machine")
    ap.add_argument("--ray", nargs="?", const="local", metavar="ADDRESS",
                    help="play the shards as Ray tasks: a local instance, or the cluster at ADDRESS")
    ap.add_argument("--resume", action="store_true", help="go on with the run in OUTDIR")
    args = ap.parse_args(argv)
    if args.positions < 1 or args.threads < 1:
        ap.error("--positions and --threads must be at least 1")
    try:
        args.plan = SelfPlay(format=args.format, seed=args.seed, iterations=args.iterations,
                             sample_turns=args.sample_turns, max_turns=args.max_turns,
                             games_per_shard=args.games_per_shard)
    except ValueError as e:
        ap.error(str(e))
    return args


def main(argv=None):
    from metapvp.value.selfplay import run
    args = parse_args(argv)
    stop_on_signals()
    try:
        result = run(args.outdir, args.plan, args.positions, threads=args.threads, ray=args.ray, resume=args.resume)
    except RunMismatch as e:
        print(f"selfplay: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("selfplay: stopped; the shards written stay (--resume goes on)", file=sys.stderr)
        return 1
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
