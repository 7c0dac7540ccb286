"""Environment steps per second through Stable-Baselines3 (sb3-contrib's Maskable PPO, one
environment and a vector of them, with its own MultiInputPolicy and with the project's network)
beside the project's own PPO rollout, in one run on this machine, against a random opponent.

    ./rp benchmarks/bench_sb3.py [--steps 2048] [--envs 8]

SB3 rows: agent steps per second of model.learn(STEPS) with one epoch per update, so the figure
is mostly collecting (each step one forward pass of one observation per environment, then the
environments stepped one after another). The project's row: learner decisions per second of
RolloutWorker.collect in this process (every waiting decision of the worker's battles in one
forward pass), the policy against random, the network of the same preset. A benchmark, not a
test: the figures depend on the machine and its load."""
import argparse
import tempfile
import time

import gymnasium
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.vec_env import DummyVecEnv

import metapvp.gym  # noqa: F401 -- registers the ids
from metapvp import ROOT
from metapvp.integrations.sb3 import MetapvpPolicy
from metapvp.training.config import load_expt
from metapvp.training.rollout import Matchup, RolloutWorker
from metapvp.training.trainer import Trainer


def sb3(policy, envs: int, steps: int) -> float:
    env = DummyVecEnv([lambda: gymnasium.make("metapvp/Gen9RandomBattle-v0", opponent="random")] * envs)
    model = MaskablePPO(policy, env, n_steps=max(64, steps // envs // 2), batch_size=64, n_epochs=1, seed=0)
    start = time.perf_counter()
    model.learn(steps)
    seconds = time.perf_counter() - start
    env.close()
    return model.num_timesteps / seconds


def own_rollout(steps: int) -> float:
    cfg = load_expt(ROOT / "expts" / "smoke.yml", ["--contract", "singles-v2",
                                                   "--rollout.decisions_per_worker", str(steps)])
    with tempfile.TemporaryDirectory() as tmp:
        plan = Trainer(cfg, tmp).plans(1)[0]
    plan["matchups"], plan["shares"] = [Matchup("baseline", "main", "random")], [1.0]
    worker = RolloutWorker(cfg)
    try:
        worker.collect({**plan, "decisions": 200})   # warm up: V8's JIT, the first battles
        start = time.perf_counter()
        rollout = worker.collect(plan)
        return len(rollout.actions) / (time.perf_counter() - start)
    finally:
        worker.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=2048)
    ap.add_argument("--envs", type=int, default=8)
    args = ap.parse_args()
    torch.set_num_threads(1)
    rows = [("SB3 MaskablePPO, MultiInputPolicy, 1 env", sb3("MultiInputPolicy", 1, args.steps)),
            (f"SB3 MaskablePPO, MultiInputPolicy, {args.envs} envs", sb3("MultiInputPolicy", args.envs, args.steps)),
            ("SB3 MaskablePPO, MetapvpPolicy, 1 env", sb3(MetapvpPolicy, 1, args.steps)),
            (f"SB3 MaskablePPO, MetapvpPolicy, {args.envs} envs", sb3(MetapvpPolicy, args.envs, args.steps)),
            ("metapvp's own rollout (RolloutWorker.collect, 1 process)", own_rollout(args.steps))]
    base = rows[-1][1]
    width = max(len(name) for name, _ in rows)
    for name, rate in rows:
        print(f"{name:<{width}}  {rate:7.0f} steps/s  ({rate / base:.2f}x the project's rollout)")


if __name__ == "__main__":
    main()
