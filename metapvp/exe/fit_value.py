"""Fits the value network over the engine's state to self-play games, from an experiment file
(what it fits and how it is judged: metapvp/value/fit.py).

    metapvp fit-value expts/value/r1.yml runs/value/r1 [--resume] [--epochs 2 --network.width 128 ...]

Prints the training loss as it goes and each epoch's held-out figures, then the held-out table
of the network beside the engine's evaluation and the linear value (its log-loss less theirs with
95% intervals by game), and last the result as JSON."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from metapvp.lifecycle import stop_on_signals
from metapvp.training.config import ConfigError


def parse_args(argv=None):
    ap = argparse.ArgumentParser(prog="metapvp fit-value", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("expt", type=Path, help="the experiment file (expts/value/r1.yml)")
    ap.add_argument("outdir", type=Path, help="the run's directory")
    ap.add_argument("--resume", action="store_true", help="go on from the run's last checkpoint")
    args, args.overrides = ap.parse_known_args(argv)   # the rest: settings over the file's, as `metapvp train`'s
    return args


def main(argv=None):
    from metapvp.value.fit import load_config, run
    args = parse_args(argv)
    try:
        cfg = load_config(args.expt, args.overrides)
    except ConfigError as e:
        print(f"fit-value: {e}", file=sys.stderr)
        return 2
    stop_on_signals()
    try:
        result = run(cfg, args.outdir, resume=args.resume)
    except (ConfigError, ValueError) as e:
        print(f"fit-value: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("fit-value: stopped; --resume goes on from the last epoch's checkpoint", file=sys.stderr)
        return 1
    for name in ("network", "linear", "engine_eval"):
        r = result[name]
        print(f"{name:<12} log-loss {r['log_loss']:.4f}  Brier {r['brier']:.4f}  accuracy {r['accuracy']:.3f}",
              file=sys.stderr)
    for name in ("linear", "engine_eval"):
        d = result[f"network_minus_{name}"]
        print(f"network less {name}: {d['difference']:+.4f} ({d['ci95'][0]:+.4f} to {d['ci95'][1]:+.4f}, "
              f"by {d['games']} games)", file=sys.stderr)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
