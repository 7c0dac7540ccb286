"""Trains a policy by self-play PPO.

    ./rp metapvp/exe/integrated_rl_script.py EXPT.yml OUTDIR [--resume] [--device cpu|cuda]
        [--workers N] [--ray [ADDRESS]] [--section.key VALUE ...]

EXPT.yml is an experiment file (see expts/ and metapvp/training/config.py); any setting can be
overridden on the command line, e.g. --ppo.learning_rate 1e-4. OUTDIR gets the resolved config,
checkpoints (model files head2head.py can load), metrics.csv, TensorBoard logs (tb/),
winrate.png and elo.json. Ctrl-C stops after writing a checkpoint; --resume continues.
--ray runs the rollout workers as Ray actors: on a local Ray instance, or with ADDRESS ('auto',
'ray://host:port') on a running cluster (docs/training.md: "Training on a cluster")."""
from __future__ import annotations

import argparse
import json
import logging
import sys

from metapvp.cluster.pool import make_pool
from metapvp.lifecycle import stop_on_signals
from metapvp.models import ModelError
from metapvp.training.config import ConfigError, load_expt
from metapvp.training.pool import WorkerError
from metapvp.training.trainer import Trainer, TrainingError


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("expt", help="experiment file (YAML)")
    parser.add_argument("outdir", help="run directory")
    parser.add_argument("--resume", action="store_true", help="continue the run in OUTDIR from its last checkpoint")
    parser.add_argument("--device", help="where learning runs: cpu, cuda, cuda:1 ...")
    parser.add_argument("--workers", type=int, help="rollout processes (0: roll out in this process)")
    parser.add_argument("--ray", nargs="?", const="", metavar="ADDRESS",
                        help="rollout workers as Ray actors; ADDRESS joins a cluster (default: a local instance)")
    args, rest = parser.parse_known_args(argv)
    stop_on_signals()  # Ctrl-C and SIGTERM checkpoint and stop
    overrides = list(rest)
    if args.device:
        overrides += ["--device", args.device]
    if args.workers is not None:
        overrides += ["--workers", str(args.workers)]
    if args.ray is not None:
        overrides += ["--ray.enabled", "true", "--ray.address", json.dumps(args.ray or None)]  # quoted: kept a string
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        cfg = load_expt(args.expt, overrides)
        trainer = Trainer(cfg, args.outdir, resume=args.resume)
        latest = trainer.train(make_pool(cfg))
    except (ConfigError, TrainingError, ModelError, WorkerError) as e:
        print(f"integrated_rl_script: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("integrated_rl_script: interrupted; the last checkpoint is in "
              f"{args.outdir}/checkpoints (continue with --resume)", file=sys.stderr)
        return 130
    print(f"latest model: {latest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
