"""Stays online on a Showdown server and accepts challenges in the given formats, from anyone
or from an allow-list, playing several at once with the given player. This is how a person
plays against a trained model: challenge the bot's name from any Showdown client.

    ./rp metapvp/exe/challenge_bot.py SPEC --formats gen9randombattle[,gen9ou]
        [--host H --port P | --url URL] [--username U] [--password-file F]
        [--accept-from name1,name2] [--num-battles N] [--max-concurrent C] [--max-queue Q]
        [--team FILE] [--outdir DIR]

A challenge that arrives while C battles run waits in a queue (first come, first served; the
challenger is told its place by private message) and is accepted when a battle ends; beyond Q
waiting, it is rejected with a message saying why. SPEC `agent` is the shipped model for the
first format, at the search its model names for a server (docs/live.md, "`agent`'s budget on
a server").

Runs until N battles have finished (forever without --num-battles) or Ctrl-C; prints a JSON
summary on the way out."""
from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from pathlib import Path

from metapvp.players import SpecError, live_spec, make_player
from metapvp.showdown.battles import to_id
from metapvp.showdown.cli import add_connection_args, options_from
from metapvp.showdown.client import ShowdownClient, ShowdownError, decision_times
from metapvp.showdown.login import LoginError


async def run(args, client_box: list) -> list:
    formats = tuple(f.strip() for f in args.formats.split(",") if f.strip())
    # `agent`: the first format's model, at its setting for a server (its summary names it)
    args.spec = live_spec(args.spec, formats[0])
    player = make_player(args.spec, seed=args.seed, fmt=formats[0])
    allow = tuple(to_id(n) for n in args.accept_from.split(",")) if args.accept_from else ()
    outdir = Path(args.outdir) if args.outdir else None
    client = ShowdownClient(options_from(args, accept_formats=formats, accept_from=allow,
                                         max_queue=args.max_queue,
                                         log_dir=outdir / "logs" if outdir else None), player)
    client_box.append(client)
    print(f"challenge_bot: {client.o.username} accepts {', '.join(formats)} at {client.o.url}, playing {args.spec}",
          file=sys.stderr, flush=True)
    return await client.run_with(client.serve(args.num_battles))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_connection_args(p)
    p.add_argument("--formats", default="gen9randombattle", help="comma-separated format ids to accept")
    p.add_argument("--accept-from", help="comma-separated names; default: anyone")
    p.add_argument("--max-queue", type=int, default=16,
                   help="challenges that wait (first come, first served) while --max-concurrent battles "
                        "run; beyond it a challenge is rejected with a message saying why")
    p.add_argument("--num-battles", type=int, help="stop after this many battles")
    p.add_argument("--outdir")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    box: list = []
    code = 0
    try:
        asyncio.run(run(args, box))
    except (SpecError, ShowdownError, LoginError, OSError) as e:
        print(f"challenge_bot: {e}", file=sys.stderr)
        code = 2
    except KeyboardInterrupt:
        pass
    finished = box[0].stats.finished if box else []
    print(json.dumps({"player": args.spec, "battles": len(finished), "wins": sum(1 for f in finished if f.won),
                      "errors": sum(1 for f in finished if f.error),
                      "invalid_choices": sum(f.invalid for f in finished),
                      "unavailable_choices": sum(f.unavailable for f in finished),
                      "lost_on_time": sum(f.timed_out for f in finished),
                      "decision_ms": decision_times(finished),
                      "reconnects": box[0].stats.reconnects if box else 0,
                      **({"memory": box[0].stats.memory} if box and box[0].stats.memory else {})}))
    return code


if __name__ == "__main__":
    sys.exit(main())
