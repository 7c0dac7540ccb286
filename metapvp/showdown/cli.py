"""Command-line pieces shared by smogon_eval.py and challenge_bot.py."""
from __future__ import annotations

import argparse
import secrets
from pathlib import Path

from metapvp.showdown.client import ClientOptions
from metapvp.showdown.login import LOGIN_SERVER, PASSWORD_ENV, read_password


def add_connection_args(p: argparse.ArgumentParser):
    p.add_argument("spec", help="the player: random, maxdamage, heuristic, a model file, module.Class:path ...")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--url", help="the server's websocket URL (default ws://HOST:PORT/showdown/websocket)")
    p.add_argument("--username", help="default: a random metapvp-XXXX name")
    p.add_argument("--password-file", help=f"the account's password (else ${PASSWORD_ENV}; neither: "
                                            "an unregistered name, for servers without login security)")
    p.add_argument("--login-server", default=LOGIN_SERVER)
    p.add_argument("--team", help="team file (Showdown export or packed format) for formats with teams")
    p.add_argument("--max-concurrent", type=int, default=1)
    p.add_argument("--play-best-move", action="store_true", help="the player's best action, not a sample")
    p.add_argument("--timer", action="store_true", help="turn the battle timer on in every battle")
    p.add_argument("--send-interval", type=float, default=0.0,
                   help="seconds between messages (about 0.6 for public servers' rate limits)")
    p.add_argument("--thoughts", action=argparse.BooleanOptionalAction, default=None,
                   help="with --outdir, keep what the player thought at each decision beside each battle's log, "
                        "for `metapvp replay --thoughts` (default: where the player has thoughts, a policy or a "
                        "search)")
    p.add_argument("--memory-every", type=int, default=0, metavar="N",
                   help="every N finished battles, sample this process's memory (resident set, V8 heap, "
                        "knowledge caches) into the JSON summary")


def options_from(args, **extra) -> ClientOptions:
    url = args.url or f"ws://{args.host}:{args.port}/showdown/websocket"
    team = None
    if args.team:
        from metapvp.engine.v8 import context
        text = Path(args.team).read_text()
        team = context().pack_team(text)
    return ClientOptions(url=url, username=args.username or f"metapvp-{secrets.token_hex(3)}",
                         password=read_password(args.password_file), login_server=args.login_server,
                         max_concurrent=args.max_concurrent, team=team, greedy=args.play_best_move,
                         min_send_interval=args.send_interval, timer=args.timer,
                         memory_every=args.memory_every, thoughts=args.thoughts, spec=args.spec, **extra)
