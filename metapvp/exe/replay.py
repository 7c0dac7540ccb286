"""Battles to watch, from a head2head run's --outdir (or one battle's log file):

    metapvp replay RUN_DIR                        Showdown replay files, one a battle, in RUN_DIR/replays/
    metapvp replay RUN_DIR --battle 0             battle 0's replay file
    metapvp replay RUN_DIR --battle 0 --thoughts  battle 0 and what its players thought, a page that works offline
    metapvp replay RUN_DIR --thoughts --out DIR   every battle's page, in DIR

A replay file opens in any browser that reaches Showdown's site (its viewer plays the log); a
page of thoughts needs nothing but the browser. The format of the thoughts kept beside each log:
docs/replays.md."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from metapvp.replays.run import ReplayError, battle_logs, page, pick, replay, write_whole


def parse_args(argv=None):
    ap = argparse.ArgumentParser(prog="metapvp replay", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("source", type=Path, help="a head2head run's --outdir, or one battle's .log.json.gz")
    ap.add_argument("--battle", type=int, default=None, metavar="N", help="this battle only (its number in the run)")
    ap.add_argument("--thoughts", action="store_true",
                    help="the page of the battle and what its players thought, instead of Showdown's replay file")
    ap.add_argument("--out", type=Path, default=None,
                    help="the file to write (with --battle or a log file), else the folder "
                         "(default: replays/ or thoughts/ in the run's folder)")
    return ap.parse_args(argv)


def destination(args, number: int, single: bool) -> Path:
    """Where battle `number`'s file goes."""
    kind = "thoughts" if args.thoughts else "replays"
    name = f"battle-{number:06d}{'-thoughts' if args.thoughts else ''}.html"
    if single and args.out is not None:
        return args.out
    run = args.source.parent.parent if args.source.is_file() else args.source
    return (args.out if args.out is not None else run / kind) / name


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        chosen = pick(battle_logs(args.source), args.battle, args.source)
        single = args.battle is not None or args.source.is_file()
        for number, log in chosen.items():
            text = page(log, number) if args.thoughts else replay(log, number)
            out = destination(args, number, single)
            write_whole(out, text)
            print(out)
    except ReplayError as e:
        print(f"metapvp replay: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
