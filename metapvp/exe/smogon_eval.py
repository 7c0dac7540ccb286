"""Plays N battles on a Showdown server with any player: ladder searches, or challenges to one
user, and reports the win rate and, where the server reports it, the rating before and after.

    ./rp metapvp/exe/smogon_eval.py SPEC --format gen9randombattle --num-matches N
        [--max-concurrent C] [--host H --port P | --url URL] [--username U] [--password-file F]
        [--challenge USER] [--team FILE] [--outdir DIR]

The password comes from --password-file or $METAPVP_SHOWDOWN_PASSWORD, never the command line.
DIR gets each battle's messages (logs/ROOM.log) and results.json; the last line of stdout is
the result as JSON. SPEC `agent` plays the search its model names for a server (docs/live.md,
"`agent`'s budget on a server"), spelt out in the result. Ctrl-C stops and still writes what finished."""
from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
import time
from pathlib import Path

from tqdm import tqdm

from metapvp.arena.stats import wilson
from metapvp.players import SpecError, live_spec, make_player
from metapvp.showdown.cli import add_connection_args, options_from
from metapvp.showdown.client import ShowdownClient, ShowdownError, decision_times
from metapvp.showdown.login import LoginError


def summarize(finished, args, seconds: float, memory: list) -> dict:
    played = [f for f in finished if f.error is None]
    wins = sum(1 for f in played if f.won)
    ties = sum(1 for f in played if f.tie)
    n = len(played)
    ratings = [f.rating for f in finished if f.rating]
    return {"player": args.spec, "format": args.format, "requested": args.num_matches, "played": n,
            "wins": wins, "losses": n - wins - ties, "ties": ties,
            "win_rate": (wins + 0.5 * ties) / n if n else None,
            "win_rate_ci95": list(wilson((wins + 0.5 * ties) / n, n)) if n else None,
            "errors": len(finished) - n, "error_messages": [f"{f.room}: {f.error}" for f in finished if f.error][:20],
            "invalid_choices": sum(f.invalid for f in finished),
            "unavailable_choices": sum(f.unavailable for f in finished),
            "refusals_recovered": sum(f.recovered for f in finished),
            "lost_on_time": sum(f.timed_out for f in finished),
            "decision_ms": decision_times(finished),
            "rating_before": ratings[0][0] if ratings else None,
            "rating_after": ratings[-1][1] if ratings else None, "seconds": round(seconds, 1),
            **({"memory": memory} if memory else {})}


async def run(args) -> dict:
    outdir = Path(args.outdir) if args.outdir else None
    args.spec = live_spec(args.spec, args.format)   # results name the search `agent` played
    player = make_player(args.spec, seed=args.seed, fmt=args.format)
    client = ShowdownClient(options_from(args, log_dir=outdir / "logs" if outdir else None), player)
    bar = tqdm(total=args.num_matches, unit="battle", file=sys.stderr, disable=args.quiet)
    start = time.monotonic()

    async def progress():
        while True:
            bar.n = len(client.stats.finished)
            bar.refresh()
            await asyncio.sleep(1.0)
    ticker = asyncio.create_task(progress())
    try:
        finished = await client.run_with(client.play(args.format, args.num_matches, opponent=args.challenge,
                                                     timeout=args.timeout))
    finally:
        ticker.cancel()
        bar.n = len(client.stats.finished)
        bar.close()
    return summarize(finished, args, time.monotonic() - start, client.stats.memory)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_connection_args(p)
    p.add_argument("--format", default="gen9randombattle")
    p.add_argument("--num-matches", type=int, default=10)
    p.add_argument("--challenge", help="challenge this user instead of searching the ladder")
    p.add_argument("--outdir")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--timeout", type=float, default=6 * 3600, help="give up after this many seconds")
    p.add_argument("--quiet", action="store_true")
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        result = asyncio.run(run(args))
    except (SpecError, ShowdownError, LoginError, OSError) as e:
        print(f"smogon_eval: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("smogon_eval: interrupted", file=sys.stderr)
        return 130
    if args.outdir:
        Path(args.outdir).mkdir(parents=True, exist_ok=True)
        (Path(args.outdir) / "results.json").write_text(json.dumps(result, indent=2))
    print(json.dumps(result))
    return 0 if result["played"] else 1


if __name__ == "__main__":
    sys.exit(main())
