"""Pits two players against each other at full speed and reports honest statistics.

    ./rp metapvp/exe/head2head.py --format gen9randombattle --p1 heuristic --p2 maxdamage \\
        --num-matches 1000 [--workers W] [--seed S] [--sim inprocess|stdio] [--outdir DIR] \\
        [--play-best-move p1|p2|both] [--team-p1 FILE --team-p2 FILE] [--concurrency C] \\
        [--ray [ADDRESS]] [--resume]

Players are specs (see metapvp/players/spec.py): random, first, maxdamage, heuristic,
module.Class:weights, ,module.factory, or a model file. --p1 and --p2 name players, not sides:
they swap sides every battle. Each of W worker processes owns a V8 context and plays C battles at
once. The last line of stdout is the result as one JSON object, also written to
DIR/results.json; DIR/logs/ gets every battle in Showdown's saved-battle JSON, gzipped.
With --ray the workers are Ray actors, spread over a cluster's nodes; the results are the same
as the local run's for the same seed and --workers.
Ctrl-C stops the run and still writes what was finished; --resume with the same command goes on
with it (its battles logged in DIR count, the others are played; a larger --num-matches extends
it). A DIR that holds another run's battles is refused."""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from pathlib import Path

from metapvp.arena.rundir import RunDirError
from metapvp.arena.runner import RunConfig, run
from metapvp.cluster.battles import run_on_ray
from metapvp.lifecycle import stop_on_signals
from metapvp.players import SpecError, make_player


def table(r: dict) -> str:
    lo, hi = r["p1_win_rate_ci95"]
    rate = "n/a" if r["p1_win_rate"] is None else f"{r['p1_win_rate']:.3f}  (95% CI {lo:.3f}-{hi:.3f})"
    rows = [("format", r["format"]), ("p1", r["p1"]), ("p2", r["p2"]),
            ("matches", f"{r['matches']} of {r['requested']}" + ("  (interrupted)" if r["interrupted"] else "")
             + (f"  ({r['resumed']} from earlier sittings)" if r.get("resumed") else "")),
            ("p1 wins / p2 wins / ties", f"{r['p1_wins']} / {r['p2_wins']} / {r['ties']}"),
            ("p1 win rate", rate),
            ("z vs an even match", "n/a" if r["z"] is None else f"{r['z']:+.2f}"),
            ("Elo difference", "n/a" if r["elo_diff"] is None else f"{r['elo_diff']:+.0f}"),
            ("mean turns", "n/a" if r["mean_turns"] is None else f"{r['mean_turns']:.1f}"),
            ("speed", f"{r['battles_per_s']:.1f} battles/s, {r['turns_per_s']:.0f} turns/s, {r['workers']} workers"),
            ("errors / invalid choices", f"{r['errors']} / {r['invalid_choices']}"
                                         f"  ({r['unavailable_choices']} re-decided for hidden information)")]
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{width}}  {v}" for k, v in rows)


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--format", default="gen9randombattle")
    ap.add_argument("--p1", required=True, help="player spec")
    ap.add_argument("--p2", required=True, help="player spec")
    ap.add_argument("--num-matches", type=int, default=100)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--concurrency", type=int, default=32, help="battles at once per worker")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sim", choices=["inprocess", "stdio"], default="inprocess")
    ap.add_argument("--outdir", default=None, help="where results.json and logs/ go")
    ap.add_argument("--play-best-move", choices=["p1", "p2", "both"], default=None,
                    help="these players take their best action instead of sampling")
    ap.add_argument("--team-p1", default=None, help="team file (export or packed) for --p1")
    ap.add_argument("--team-p2", default=None, help="team file (export or packed) for --p2")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    ap.add_argument("--memory-every", type=int, default=0, metavar="N",
                    help="every N battles, each local worker samples its memory (resident set, V8 heap, "
                         "knowledge caches) into results.json (`memory`)")
    ap.add_argument("--ray", nargs="?", const="local", metavar="ADDRESS",
                    help="play on Ray actors (one per worker): a local instance, or the cluster at "
                         "ADDRESS ('auto', 'ray://host:port')")
    ap.add_argument("--thoughts", action=argparse.BooleanOptionalAction, default=None,
                    help="with --outdir, keep what the players thought at each decision beside each battle's "
                         "log, for `metapvp replay --thoughts` (default: where a player has thoughts, a policy "
                         "or a search; scripted players have none)")
    ap.add_argument("--resume", action="store_true",
                    help="go on with the stopped run in --outdir: its logged battles count, the rest are played")
    args = ap.parse_args(argv)
    if args.resume and not args.outdir:
        ap.error("--resume goes on with the run in --outdir: name it")
    if bool(args.team_p1) != bool(args.team_p2):
        ap.error("--team-p1 and --team-p2 go together")
    for t in (args.team_p1, args.team_p2):
        if t and not Path(t).is_file():
            ap.error(f"team file {t} does not exist")
    if args.num_matches < 1 or args.workers < 1 or args.concurrency < 1:
        ap.error("--num-matches, --workers and --concurrency must be at least 1")
    args.workers = min(args.workers, args.num_matches)
    for spec in (args.p1, args.p2):
        try:
            make_player(spec, fmt=args.format)  # fail here, with the spec named, rather than in every worker
        except SpecError as e:
            ap.error(str(e))
    return args


def config(args) -> RunConfig:
    return RunConfig(**{f.name: getattr(args, f.name) for f in dataclasses.fields(RunConfig)})


def play(cfg: RunConfig) -> dict:
    """The run, on Ray actors (cfg.ray) or local processes."""
    return run_on_ray(cfg) if cfg.ray is not None else run(cfg)


def main(argv=None):
    cfg = config(parse_args(argv))
    stop_on_signals()  # Ctrl-C and SIGTERM stop the workers and write what finished
    try:
        result = play(cfg)
    except RunDirError as e:
        print(f"head2head: {e}", file=sys.stderr)
        return 2
    print(table(result), file=sys.stderr)
    if cfg.outdir:
        Path(cfg.outdir).mkdir(parents=True, exist_ok=True)
        (Path(cfg.outdir) / "results.json").write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result))
    return 0 if result["errors"] == 0 and not result["interrupted"] else 1


if __name__ == "__main__":
    sys.exit(main())
