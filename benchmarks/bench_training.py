"""Benchmarks training throughput: decisions per second during self-play PPO, with and without
the learning time, on this machine.

    ./rp benchmarks/bench_training.py [--expt expts/quick.yml] [--updates 20] [--workers 2]
                                   [--contracts singles-v1,singles-v2] [--ray [ADDRESS]]

Runs the experiment twice for a number of updates (evaluation and checkpoints off, so only
rollouts and learning count) in temporary directories: with rollout.overlap on (the workers
collect the next rollout while the learner updates) and off (they wait for the update). For
each it prints, summed over the updates after the first two (start-up):
  end to end        learner decisions trained per second of wall time, rollouts and learning
  all seats         every decision made in rollouts (learner and opponent seats), likewise
  rollouts only     learner decisions per second of the workers' collecting time
  learning only     learner decisions per second of the learner's updating time (the ceiling
                    the learner puts on the run however many workers collect; with overlap on,
                    measured while the workers share the cores)
  learning's share  of the wall time, the learner updating while nothing else runs (overlap off)
                    or while the workers collect (overlap on)
and, measured just before in the same run, the raw simulator's turns/s in one process (the bench.py
reference: js/tools/raw-sim.mjs under Node; where Node or the npm packages are missing, the same
battles in mini-racer), so that runs on machines of other speeds can be compared.
With --contracts, it runs the experiment once per contract instead (overlap on, as configured
otherwise) and prints them side by side, with each one's end-to-end figure against the first's.
With --ray, it runs the experiment on the local worker pool and then on Ray actors (a local Ray
instance, or the cluster at ADDRESS), side by side in the same way.
A benchmark, not a test: the figures depend on the machine and its load."""
import argparse
import csv
import json
import subprocess
import tempfile
import time

import numpy as np

from metapvp.cluster.pool import make_pool
from metapvp.exe.bench import raw_mini_racer, raw_node
from metapvp.training.config import load_expt
from metapvp.training.trainer import Trainer

FIGURES = ("end to end, learner decisions/s", "end to end, all seats decisions/s",
           "rollouts only, learner decisions/s", "learning only, learner decisions/s",
           "learning's share of the wall time", "wall time (s)")


def measure(args, rest: list, overrides: list) -> list[str]:
    with tempfile.TemporaryDirectory() as tmp:
        cfg = load_expt(args.expt, ["--workers", str(args.workers), "--eval.every", "1000000",
                                    "--checkpoint.every", "1000000", "--league.snapshot_every", "1000000",
                                    "--max_minutes", "null", *rest, *overrides])
        per_update = cfg["rollout"]["decisions_per_worker"] * max(1, args.workers)
        cfg["total_decisions"] = per_update * args.updates
        start = time.perf_counter()
        Trainer(cfg, tmp).train(make_pool(cfg))
        wall = time.perf_counter() - start
        with open(f"{tmp}/metrics.csv", newline="") as f:
            rows = [r for r in csv.DictReader(f) if r.get("charts/learn_seconds")][2:]
    col = lambda k: np.array([float(r[k]) for r in rows])  # noqa: E731
    total = col("charts/wait_seconds") + col("charts/learn_seconds")
    learner, seats = col("charts/learner_decisions").sum(), col("charts/all_seats_decisions").sum()
    return [f"{learner / total.sum():.0f}", f"{seats / total.sum():.0f}",
            f"{learner / col('charts/collect_seconds').sum():.0f}",
            f"{learner / col('charts/learn_seconds').sum():.0f}",
            f"{col('charts/learn_seconds').sum() / total.sum():.1%}", f"{wall:.0f}"]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--expt", default="expts/quick.yml")
    p.add_argument("--updates", type=int, default=20)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--contracts", help="comma-separated contracts to compare, instead of overlap on/off")
    p.add_argument("--ray", nargs="?", const="", metavar="ADDRESS",
                   help="compare the local pool with Ray actors, instead of overlap on/off")
    args, rest = p.parse_known_args()
    try:
        raw, engine = raw_node("gen9randombattle", 60, 1), "Node"
    except (OSError, subprocess.CalledProcessError):
        raw, engine = raw_mini_racer("gen9randombattle", 60, 1), "mini-racer"
    cfg = load_expt(args.expt, rest)
    if args.contracts:
        columns = {c: measure(args, rest, ["--contract", c]) for c in args.contracts.split(",")}
    elif args.ray is not None:
        columns = {"local pool": measure(args, rest, []),
                   "ray": measure(args, rest, ["--ray.enabled", "true", "--ray.address", json.dumps(args.ray or None)])}
    else:
        columns = {f"overlap {x}": measure(args, rest, ["--rollout.overlap", "true" if x == "on" else "false"])
                   for x in ("on", "off")}
    print(f"{args.expt}: {args.updates - 2} updates measured, {args.workers} workers, {cfg['model']['preset']} model")
    print(f"{'':36s}" + "".join(f"{c:>14s}" for c in columns))
    for i, name in enumerate(FIGURES):
        print(f"  {name:34s}" + "".join(f"{v[i]:>14s}" for v in columns.values()))
    if args.contracts or args.ray is not None:
        first = float(next(iter(columns.values()))[0])
        print(f"  {'end to end against the first':34s}"
              + "".join(f"{float(v[0]) / first:>14.0%}" for v in columns.values()))
    print(f"  machine reference: the raw simulator (gen9randombattle) ran {raw['turns'] / raw['seconds']:.0f} "
          f"turns/s in {engine}, one process, just before")


if __name__ == "__main__":
    main()
