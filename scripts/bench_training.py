"""Benchmarks training throughput: decisions per second during self-play PPO, with and without
the learning time, on this machine.

    ./rp scripts/bench_training.py [--expt expts/quick.yml] [--updates 20] [--workers 2]

Runs the experiment for a number of updates (evaluation and checkpoints off, so only rollouts
and learning count) in a temporary directory and prints, averaged over the updates after the
first two (start-up):
  end to end        learner decisions trained per second, rollouts and learning together
  rollouts only     learner decisions per second of rollout time (no learning)
  all seats         every decision made in rollouts (learner and opponent seats) per second
and, measured just before in the same run, the raw simulator's turns/s on one core (the bench.py
reference: js/tools/raw-sim.mjs), so that runs on machines of other speeds can be compared.
A benchmark, not a test: the figures depend on the machine and its load."""
import argparse
import csv
import tempfile
import time

import numpy as np

from metapvp.exe.bench import raw_node
from metapvp.training.config import load_expt
from metapvp.training.trainer import Trainer


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--expt", default="expts/quick.yml")
    p.add_argument("--updates", type=int, default=20)
    p.add_argument("--workers", type=int, default=2)
    args, rest = p.parse_known_args()
    raw = raw_node("gen9randombattle", 60, 1)
    with tempfile.TemporaryDirectory() as tmp:
        cfg = load_expt(args.expt, ["--workers", str(args.workers), "--eval.every", "1000000",
                                    "--checkpoint.every", "1000000", "--league.snapshot_every", "1000000",
                                    "--max_minutes", "null", *rest])
        per_update = cfg["rollout"]["decisions_per_worker"] * max(1, args.workers)
        cfg["total_decisions"] = per_update * args.updates
        start = time.perf_counter()
        Trainer(cfg, tmp).train()
        wall = time.perf_counter() - start
        with open(f"{tmp}/metrics.csv", newline="") as f:
            rows = [r for r in csv.DictReader(f) if r.get("charts/rollout_seconds")][2:]
    col = lambda k: np.array([float(r[k]) for r in rows])  # noqa: E731
    learner = col("charts/decisions_per_s") * (col("charts/rollout_seconds") + col("charts/learn_seconds"))
    total = col("charts/rollout_seconds") + col("charts/learn_seconds")
    all_seats = col("charts/all_seats_decisions_per_s") * col("charts/rollout_seconds")
    print(f"{args.expt}: {len(rows)} updates measured, {args.workers} workers, "
          f"{cfg['model']['preset']} model, {wall:.0f} s in all")
    print(f"  end to end (rollouts + learning): {learner.sum() / total.sum():8.0f} learner decisions/s")
    print(f"  rollouts only (no learning):      {learner.sum() / col('charts/rollout_seconds').sum():8.0f} learner decisions/s")
    print(f"  all seats, end to end:            {all_seats.sum() / total.sum():8.0f} decisions/s")
    print(f"  all seats, rollouts only:         {all_seats.sum() / col('charts/rollout_seconds').sum():8.0f} decisions/s")
    print(f"  learning's share of the time:     {col('charts/learn_seconds').sum() / total.sum():8.1%}")
    print(f"  machine reference: the raw simulator (Node, gen9randombattle) ran {raw['turns'] / raw['seconds']:.0f} "
          f"turns/s on one process just before")


if __name__ == "__main__":
    main()
