"""How many steps the project's network needs under Stable-Baselines3 to beat a random player:
sb3-contrib's Maskable PPO with metapvp.integrations.sb3.MetapvpPolicy, from a fresh network, on
`metapvp/Gen9RandomBattle-v0` against random (a DummyVecEnv of --envs environments), then the
learned network played by the project's own player in --battles battles against random, its
actions sampled and its most probable (SB3's `deterministic=True`). `--policy multi` learns with
sb3-contrib's own MultiInputPolicy instead, played through the environment by the model's
`predict` (the library's way), for a side-by-side reading.

    ./rp benchmarks/bench_sb3_learning.py [--steps 4096,8192,16384] [--seeds 0,1,2] [--battles 100]
                                       [--lr 1e-3] [--n-steps 64] [--batch 64] [--epochs 10] [--envs 8]
                                       [--policy metapvp|multi] [--threads 1] [--gamma 0.99] [--gae-lambda 0.95]
                                       [--ent-coef 0] [--damage 0]

One line per (steps, seed): the win rates with their 95% intervals and the seconds learning took.
A benchmark, not a test (the suite's test is test_integrations.py): the figures vary with the
seed, so read them over several."""
import argparse
import time

import gymnasium
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.vec_env import DummyVecEnv

import metapvp.gym  # noqa: F401 -- registers the ids
from metapvp.arena import play
from metapvp.arena.stats import summarize
from metapvp.gym import PokemonEnv
from metapvp.gym.spaces import DEFAULT_CONTRACT
from metapvp.integrations.sb3 import MetapvpPolicy
from metapvp.players import make_player
from metapvp.players.neural import NeuralPlayer


def learn(steps: int, seed: int, args) -> tuple[MaskablePPO, float]:
    rewards = {"damage_dealt": args.damage, "damage_taken": -args.damage}
    make = lambda: gymnasium.make("metapvp/Gen9RandomBattle-v0", opponent="random", rewards=rewards)  # noqa: E731
    env = DummyVecEnv([make] * args.envs)
    policy = MetapvpPolicy if args.policy == "metapvp" else "MultiInputPolicy"
    model = MaskablePPO(policy, env, n_steps=args.n_steps, batch_size=args.batch, n_epochs=args.epochs,
                        learning_rate=args.lr, gamma=args.gamma, gae_lambda=args.gae_lambda, ent_coef=args.ent_coef,
                        seed=seed)
    start = time.perf_counter()
    model.learn(steps)
    seconds = time.perf_counter() - start
    env.close()
    return model, seconds


def win_rate(model: MaskablePPO, battles: int, greedy: bool) -> tuple[float, list[float]]:
    """(win rate, its 95% interval) over `battles` against random."""
    if isinstance(model.policy, MetapvpPolicy):
        player = NeuralPlayer(model.policy.net.eval(), name="sb3", seed=1, contract=DEFAULT_CONTRACT)
        results = list(play(player, make_player("random", 2), "gen9randombattle", range(battles), seed=9,
                            concurrency=50, greedy=(greedy, False)))
        counts = [sum(r.winner == w for r in results) for w in ("a", "b", "tie")]
    else:
        counts = played_through_env(model, battles, greedy)
    won = summarize(*counts)
    return won["p1_win_rate"], won["p1_win_rate_ci95"]


def played_through_env(model: MaskablePPO, battles: int, greedy: bool) -> list[int]:
    """[wins, losses, ties] of `battles` episodes against random, each action from the model's
    predict with the environment's masks."""
    env = PokemonEnv(opponent="random")
    counts = {"win": 0, "loss": 0, "tie": 0}
    obs, _ = env.reset(seed=9)
    for _ in range(battles):
        done = False
        while not done:
            action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=greedy)
            obs, _, terminated, truncated, info = env.step(int(action))
            done = terminated or truncated
        counts[info["outcome"]] += 1
        obs, _ = env.reset()
    env.close()
    return [counts["win"], counts["loss"], counts["tie"]]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", default="4096,8192,16384", help="learning steps, comma-separated")
    ap.add_argument("--seeds", default="0,1,2", help="comma-separated")
    ap.add_argument("--battles", type=int, default=100)
    ap.add_argument("--policy", choices=("metapvp", "multi"), default="metapvp",
                    help="the project's network (MetapvpPolicy) or sb3-contrib's MultiInputPolicy")
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--n-steps", type=int, default=64, help="steps per environment per update")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--envs", type=int, default=8)
    ap.add_argument("--threads", type=int, default=1, help="torch threads (the results follow them: see docs)")
    ap.add_argument("--gamma", type=float, default=0.99)
    ap.add_argument("--gae-lambda", type=float, default=0.95)
    ap.add_argument("--ent-coef", type=float, default=0.0)
    ap.add_argument("--damage", type=float, default=0.0,
                    help="shaping: this much reward per whole Pokemon's HP dealt, minus as much per HP taken")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    print(f"{'steps':>6} {'seed':>4}  {'sampled':>7} {'95% CI':>9}  {'greedy':>7} {'95% CI':>9}  {'learning s':>10}")
    for steps in [int(s) for s in args.steps.split(",")]:
        for seed in [int(s) for s in args.seeds.split(",")]:
            model, seconds = learn(steps, seed, args)
            rates = [win_rate(model, args.battles, greedy) for greedy in (False, True)]
            print(f"{steps:>6} {seed:>4}  " + "  ".join(f"{r:>7.2f} {lo:.2f}-{hi:.2f}" for r, (lo, hi) in rates)
                  + f"  {seconds:>10.0f}", flush=True)


if __name__ == "__main__":
    main()
